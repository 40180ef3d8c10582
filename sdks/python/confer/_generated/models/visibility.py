from enum import StrEnum


class Visibility(StrEnum):
    INSTANCE = "instance"
    ORG = "org"

    def __str__(self) -> str:
        return str(self.value)
