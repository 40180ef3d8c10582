from enum import StrEnum


class ContextBlockType0Type(StrEnum):
    SUMMARY = "summary"

    def __str__(self) -> str:
        return str(self.value)
