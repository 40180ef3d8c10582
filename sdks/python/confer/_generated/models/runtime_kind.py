from enum import StrEnum


class RuntimeKind(StrEnum):
    DAYTONA = "daytona"
    E2B = "e2b"
    LOCAL = "local"

    def __str__(self) -> str:
        return str(self.value)
