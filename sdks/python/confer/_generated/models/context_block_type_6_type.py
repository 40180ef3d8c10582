from enum import StrEnum


class ContextBlockType6Type(StrEnum):
    TOOL_RESULT = "tool_result"

    def __str__(self) -> str:
        return str(self.value)
