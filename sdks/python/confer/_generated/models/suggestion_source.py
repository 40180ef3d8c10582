from enum import StrEnum


class SuggestionSource(StrEnum):
    GENERATED = "generated"
    MANUAL = "manual"

    def __str__(self) -> str:
        return str(self.value)
