from enum import StrEnum


class PlanStatus(StrEnum):
    APPROVED = "approved"
    CANCELLED = "cancelled"
    DONE = "done"
    DRAFT = "draft"
    IN_PROGRESS = "in_progress"

    def __str__(self) -> str:
        return str(self.value)
