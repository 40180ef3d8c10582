from enum import StrEnum


class RunStatus(StrEnum):
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    FAILED = "failed"
    PAUSED = "paused"
    QUEUED = "queued"
    REQUIRES_ACTION = "requires_action"
    RUNNING = "running"
    SUCCEEDED = "succeeded"

    def __str__(self) -> str:
        return str(self.value)
