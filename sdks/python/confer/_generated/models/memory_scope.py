from enum import StrEnum


class MemoryScope(StrEnum):
    AGENT = "agent"
    USER = "user"

    def __str__(self) -> str:
        return str(self.value)
