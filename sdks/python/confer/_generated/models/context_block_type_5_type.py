from enum import StrEnum


class ContextBlockType5Type(StrEnum):
    ASSISTANT_TEXT = "assistant_text"

    def __str__(self) -> str:
        return str(self.value)
