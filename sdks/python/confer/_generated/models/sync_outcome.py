from enum import StrEnum


class SyncOutcome(StrEnum):
    FAILED = "failed"
    UNCHANGED = "unchanged"
    UPDATED = "updated"

    def __str__(self) -> str:
        return str(self.value)
