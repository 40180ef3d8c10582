from enum import StrEnum


class ContextBlockType3Type(StrEnum):
    REDACTED_THINKING = "redacted_thinking"

    def __str__(self) -> str:
        return str(self.value)
