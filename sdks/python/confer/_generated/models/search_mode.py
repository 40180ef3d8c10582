from enum import StrEnum


class SearchMode(StrEnum):
    BM25 = "bm25"
    HYBRID = "hybrid"
    VECTOR = "vector"

    def __str__(self) -> str:
        return str(self.value)
