"""A real MCP server for the integration tests: the Python SDK's FastMCP
(PyPI `mcp`), over streamable HTTP, the older HTTP+SSE transport or stdio.

HTTP: binds an ephemeral port itself and prints
`MCP server running on http://127.0.0.1:{port}` once it listens (the tests'
readiness check). Its tools let a test see what Confer sent (the
Authorization header, the environment of a stdio child) and what Confer
did (calls of `slow` started, and cancelled by a stopped turn, counted in
`/_confer/cancelled`).
"""

import argparse
import asyncio
import os
import socket
import sys

from mcp.server.fastmcp import Context, FastMCP
from mcp.types import ImageContent, TextContent

server = FastMCP("confer-test-peer")
cancelled = {"count": 0, "started": 0}


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@server.tool()
def shout(text: str) -> str:
    """Answers the text in capitals."""
    return text.upper()


@server.tool()
def picture() -> list:
    """Answers a caption and a tiny PNG."""
    return [
        TextContent(type="text", text="a red dot"),
        ImageContent(type="image", data="iVBORw0KGgo=", mimeType="image/png"),
    ]


@server.tool()
def authorization(ctx: Context) -> str:
    """Answers the Authorization header the call came with ("" when none)."""
    request = ctx.request_context.request
    return "" if request is None else request.headers.get("authorization", "")


@server.tool()
def environment() -> str:
    """Answers the process environment, one NAME=value per line."""
    return "\n".join(f"{k}={v}" for k, v in sorted(os.environ.items()))


@server.tool()
def fail() -> str:
    """Always fails."""
    raise ValueError("the tool failed on purpose")


@server.tool()
async def slow(seconds: float) -> str:
    """Waits, then answers; counts the calls started and those cancelled
    while waiting."""
    cancelled["started"] += 1
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        cancelled["count"] += 1
        raise
    return "finished"


@server.tool()
async def grow(name: str, ctx: Context) -> str:
    """Adds a tool called `name` and tells the client the list changed."""

    def added() -> str:
        return f"{name} was added"

    server.add_tool(added, name=name, description="Added at run time.")
    await ctx.session.send_tool_list_changed()
    return "grown"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", choices=["streamable-http", "sse", "stdio"], required=True)
    args = parser.parse_args()
    if args.transport == "stdio":
        server.run("stdio")
        return

    import uvicorn
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    app = server.streamable_http_app() if args.transport == "streamable-http" else server.sse_app()

    async def cancelled_count(_request):
        return JSONResponse(cancelled)

    app.router.routes.append(Route("/_confer/cancelled", cancelled_count))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    uvicorn_server = uvicorn.Server(config)

    async def serve() -> None:
        task = asyncio.create_task(uvicorn_server.serve(sockets=[sock]))
        while not uvicorn_server.started:
            await asyncio.sleep(0.01)
        print(f"MCP server running on http://127.0.0.1:{port}", flush=True)
        await task

    asyncio.run(serve())


if __name__ == "__main__":
    sys.exit(main())
