from enum import StrEnum


class TaskActionType0Kind(StrEnum):
    MESSAGE = "message"

    def __str__(self) -> str:
        return str(self.value)
