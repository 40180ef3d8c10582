from enum import StrEnum


class PublicationMode(StrEnum):
    MULTIPLAYER = "multiplayer"
    SINGLE = "single"

    def __str__(self) -> str:
        return str(self.value)
