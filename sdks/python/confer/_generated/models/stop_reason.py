from enum import StrEnum


class StopReason(StrEnum):
    AGENT_DELETED = "agent_deleted"
    API = "api"
    ARCHIVED = "archived"
    COMPLETED = "completed"
    DISABLED = "disabled"
    ERROR = "error"
    IDLE = "idle"
    LIMIT = "limit"
    RESTART = "restart"

    def __str__(self) -> str:
        return str(self.value)
