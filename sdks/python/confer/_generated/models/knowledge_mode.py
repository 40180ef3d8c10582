from enum import StrEnum


class KnowledgeMode(StrEnum):
    INJECT = "inject"
    TOOL = "tool"

    def __str__(self) -> str:
        return str(self.value)
