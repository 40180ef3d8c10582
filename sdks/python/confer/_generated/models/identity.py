from enum import StrEnum


class Identity(StrEnum):
    ANONYMOUS = "anonymous"
    OPTIONAL = "optional"
    REQUIRED = "required"

    def __str__(self) -> str:
        return str(self.value)
