from enum import StrEnum


class ContextBlockType2Type(StrEnum):
    THINKING = "thinking"

    def __str__(self) -> str:
        return str(self.value)
