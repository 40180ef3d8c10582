from enum import StrEnum


class Missed(StrEnum):
    CATCH_UP = "catch_up"
    RUN_ONCE = "run_once"
    SKIP = "skip"

    def __str__(self) -> str:
        return str(self.value)
