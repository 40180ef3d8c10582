from enum import StrEnum


class ContextBlockType7Type(StrEnum):
    TOOL_CALL = "tool_call"

    def __str__(self) -> str:
        return str(self.value)
