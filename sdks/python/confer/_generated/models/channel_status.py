from enum import StrEnum


class ChannelStatus(StrEnum):
    ACTIVE = "active"
    ERROR = "error"

    def __str__(self) -> str:
        return str(self.value)
