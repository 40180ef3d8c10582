from enum import StrEnum


class TodoStatus(StrEnum):
    DONE = "done"
    IN_PROGRESS = "in_progress"
    PENDING = "pending"
    SKIPPED = "skipped"

    def __str__(self) -> str:
        return str(self.value)
