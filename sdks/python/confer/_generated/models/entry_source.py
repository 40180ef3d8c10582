from enum import StrEnum


class EntrySource(StrEnum):
    CATALOG = "catalog"
    ORG = "org"

    def __str__(self) -> str:
        return str(self.value)
