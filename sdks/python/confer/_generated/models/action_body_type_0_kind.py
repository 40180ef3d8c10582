from enum import StrEnum


class ActionBodyType0Kind(StrEnum):
    MESSAGE = "message"

    def __str__(self) -> str:
        return str(self.value)
