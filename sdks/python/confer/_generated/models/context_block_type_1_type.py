from enum import StrEnum


class ContextBlockType1Type(StrEnum):
    COMPACTION = "compaction"

    def __str__(self) -> str:
        return str(self.value)
