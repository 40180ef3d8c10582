from enum import StrEnum


class SessionStatus(StrEnum):
    ARCHIVED = "archived"
    COMPLETED = "completed"
    FAILED = "failed"
    IDLE = "idle"
    PREPARING = "preparing"
    RUNNING = "running"

    def __str__(self) -> str:
        return str(self.value)
