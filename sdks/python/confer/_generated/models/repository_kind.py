from enum import StrEnum


class RepositoryKind(StrEnum):
    ARCHIVE = "archive"
    GIT = "git"

    def __str__(self) -> str:
        return str(self.value)
