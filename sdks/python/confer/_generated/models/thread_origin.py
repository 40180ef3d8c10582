from enum import StrEnum


class ThreadOrigin(StrEnum):
    DELEGATE = "delegate"
    RUN = "run"

    def __str__(self) -> str:
        return str(self.value)
