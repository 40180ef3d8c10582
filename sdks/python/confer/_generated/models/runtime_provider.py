from enum import StrEnum


class RuntimeProvider(StrEnum):
    DAYTONA = "daytona"
    E2B = "e2b"

    def __str__(self) -> str:
        return str(self.value)
