from enum import StrEnum


class SkillSource(StrEnum):
    ARCHIVE = "archive"
    CATALOG = "catalog"
    GIT = "git"
    UPLOAD = "upload"

    def __str__(self) -> str:
        return str(self.value)
