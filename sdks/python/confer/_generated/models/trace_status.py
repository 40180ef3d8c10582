from enum import StrEnum


class TraceStatus(StrEnum):
    ERROR = "error"
    OK = "ok"
    RUNNING = "running"
    STOPPED = "stopped"

    def __str__(self) -> str:
        return str(self.value)
