from enum import StrEnum


class DisplayNames(StrEnum):
    CHOSEN = "chosen"
    GENERATED = "generated"

    def __str__(self) -> str:
        return str(self.value)
