from enum import StrEnum


class MemorySource(StrEnum):
    API = "api"
    AUTO = "auto"
    TOOL = "tool"

    def __str__(self) -> str:
        return str(self.value)
