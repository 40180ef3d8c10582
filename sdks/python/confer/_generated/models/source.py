from enum import StrEnum


class Source(StrEnum):
    GENERATED = "generated"
    MANUAL = "manual"

    def __str__(self) -> str:
        return str(self.value)
