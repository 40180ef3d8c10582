from enum import StrEnum


class ThreadOrigin(StrEnum):
    CODE = "code"
    DELEGATE = "delegate"
    RUN = "run"

    def __str__(self) -> str:
        return str(self.value)
