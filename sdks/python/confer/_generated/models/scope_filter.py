from enum import StrEnum


class ScopeFilter(StrEnum):
    AGENT = "agent"
    ALL = "all"
    USER = "user"

    def __str__(self) -> str:
        return str(self.value)
