from enum import StrEnum


class WhoCanInvite(StrEnum):
    OWNER = "owner"
    PARTICIPANTS = "participants"

    def __str__(self) -> str:
        return str(self.value)
