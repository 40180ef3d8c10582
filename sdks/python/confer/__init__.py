"""Confer's Python SDK (sdks.md).

`confer.api` and `confer.models` are the generated operations and types;
`Confer` configures them and adds the typed, resumable event streams."""

from . import api, models
from ._version import VERSION
from .client import Confer
from .errors import ConferConnectionError, ConferError, StreamGapError
from .events import EVENT_TYPES
from .stream import SendResult, StreamEvent

__all__ = [
    "EVENT_TYPES",
    "VERSION",
    "Confer",
    "ConferConnectionError",
    "ConferError",
    "SendResult",
    "StreamEvent",
    "StreamGapError",
    "api",
    "models",
]
