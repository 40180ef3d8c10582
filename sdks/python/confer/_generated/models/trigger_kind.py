from enum import StrEnum


class TriggerKind(StrEnum):
    BUTTON = "button"
    MANUAL = "manual"
    SCHEDULE = "schedule"
    WEBHOOK = "webhook"

    def __str__(self) -> str:
        return str(self.value)
