from enum import StrEnum


class SpanKind(StrEnum):
    ADMISSION = "admission"
    COMPACTION = "compaction"
    LLM = "llm"
    MCP = "mcp"
    RESOLVER = "resolver"
    STORE = "store"
    TOOL = "tool"
    TURN = "turn"
    WEBHOOK = "webhook"

    def __str__(self) -> str:
        return str(self.value)
