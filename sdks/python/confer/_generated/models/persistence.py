from enum import StrEnum


class Persistence(StrEnum):
    LOCAL = "local"
    NONE = "none"
    SESSION = "session"

    def __str__(self) -> str:
        return str(self.value)
