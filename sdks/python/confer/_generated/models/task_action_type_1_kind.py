from enum import StrEnum


class TaskActionType1Kind(StrEnum):
    RUN = "run"

    def __str__(self) -> str:
        return str(self.value)
