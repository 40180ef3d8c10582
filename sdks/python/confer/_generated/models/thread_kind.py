from enum import StrEnum


class ThreadKind(StrEnum):
    MULTIPLAYER = "multiplayer"
    SINGLE = "single"

    def __str__(self) -> str:
        return str(self.value)
