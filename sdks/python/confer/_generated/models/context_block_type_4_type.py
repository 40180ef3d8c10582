from enum import StrEnum


class ContextBlockType4Type(StrEnum):
    USER_TEXT = "user_text"

    def __str__(self) -> str:
        return str(self.value)
