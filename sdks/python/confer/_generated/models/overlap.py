from enum import StrEnum


class Overlap(StrEnum):
    ALLOW = "allow"
    QUEUE = "queue"
    SKIP = "skip"

    def __str__(self) -> str:
        return str(self.value)
