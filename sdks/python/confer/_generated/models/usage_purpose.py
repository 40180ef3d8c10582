from enum import StrEnum


class UsagePurpose(StrEnum):
    ANSWER = "answer"
    COMPACTION = "compaction"
    MARKETPLACE = "marketplace"
    MEMORY = "memory"
    SUGGESTIONS = "suggestions"

    def __str__(self) -> str:
        return str(self.value)
