"""The SDK's tests run against a real Confer: `tests/api/sdks.rs` starts one
(`builtin/echo` with 200 ms between tokens, and aimock behind
`CONFER_TOOL_MODEL`) and sets `CONFER_URL` and `CONFER_API_KEY`."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from confer import Confer
from confer.api import agents_create, threads_create
from confer.models import AgentView, CreateAgent, CreateThread, ThreadView

URL = os.environ.get("CONFER_URL", "http://127.0.0.1:8080")
KEY = os.environ.get("CONFER_API_KEY", "")
TOOL_MODEL = os.environ.get("CONFER_TOOL_MODEL", "")


@pytest.fixture
def confer() -> Iterator[Confer]:
    client = Confer(URL, api_key=KEY)
    yield client
    client.close()


def new_agent(confer: Confer, model: str = "builtin/echo") -> AgentView:
    agent = agents_create.sync(
        client=confer.client,
        body=CreateAgent(name=f"sdk-{uuid.uuid4().hex[:8]}", default_model=model),
    )
    assert isinstance(agent, AgentView)
    return agent


def new_thread(confer: Confer, agent: AgentView) -> ThreadView:
    thread = threads_create.sync(client=confer.client, body=CreateThread(agent_id=agent.id))
    assert isinstance(thread, ThreadView)
    return thread
