from enum import StrEnum


class DocumentStatus(StrEnum):
    FAILED = "failed"
    INDEXING = "indexing"
    PARSING = "parsing"
    QUEUED = "queued"
    READY = "ready"

    def __str__(self) -> str:
        return str(self.value)
