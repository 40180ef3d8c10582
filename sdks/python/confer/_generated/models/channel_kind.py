from enum import StrEnum


class ChannelKind(StrEnum):
    SLACK = "slack"
    TELEGRAM = "telegram"
    WHATSAPP = "whatsapp"

    def __str__(self) -> str:
        return str(self.value)
