"""An OAuth-protected MCP server with its own authorization server, for the
managed OAuth tests (the MCP Python SDK's FastMCP, Starlette, uvicorn).

- The MCP endpoint is `/mcp` (streamable HTTP). Listing its tools needs no
  token; `tools/call` needs a bearer token this server issued and has not
  revoked, else 401 with `WWW-Authenticate` naming the resource metadata.
- RFC 9728 metadata at `/.well-known/oauth-protected-resource/mcp` names
  the authorization server `{base}/as`, whose RFC 8414 metadata is at
  `/.well-known/oauth-authorization-server/as`.
- `/as/register` (RFC 7591), `/as/authorize` (PKCE S256 required; the
  test logs in as `?user=NAME` appended to the URL, and consent is given at
  once), `/as/token` (authorization_code with the verifier, refresh_token),
  `/as/revoke` (a revoked token takes its user's whole grant). Access
  tokens live 60 s, so a client that refreshes two minutes before expiry
  refreshes on every use; a user named `long…` gets hour-long ones.
- `/_confer/stats`: counts of registrations, codes, refreshes, revocations.
- `OAUTH_PEER_CLIENT_ID` (environment): a client registered beforehand.

Prints `MCP server running on http://127.0.0.1:{port}` once it listens.
"""

import asyncio
import base64
import hashlib
import json
import os
import secrets
import socket
import sys

import uvicorn
from mcp.server.fastmcp import Context, FastMCP
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

server = FastMCP("confer-oauth-peer")
state = {
    "clients": {},  # client_id -> redirect_uris
    "codes": {},  # code -> {client_id, redirect_uri, challenge, user, resource}
    "access": {},  # token -> user
    "refresh": {},  # token -> user
    "stats": {"registrations": 0, "codes": 0, "refreshes": 0, "revocations": 0, "exchanges": 0,
              "basic_secrets": []},
}
BASE = {"url": ""}
# A client registered beforehand (Confer's `mcp_managed_oauth`): any
# redirect URI is accepted for it.
if os.environ.get("OAUTH_PEER_CLIENT_ID"):
    state["clients"][os.environ["OAUTH_PEER_CLIENT_ID"]] = ["*"]


@server.tool()
def whoami(ctx: Context) -> str:
    """Answers the bearer token the call came with."""
    header = ctx.request_context.request.headers.get("authorization", "")
    return header.removeprefix("Bearer ")


def error(status: int, code: str) -> JSONResponse:
    return JSONResponse({"error": code}, status_code=status)


async def resource_metadata(_request: Request) -> JSONResponse:
    return JSONResponse(
        {"resource": f"{BASE['url']}/mcp", "authorization_servers": [f"{BASE['url']}/as"]}
    )


async def server_metadata(_request: Request) -> JSONResponse:
    issuer = f"{BASE['url']}/as"
    return JSONResponse(
        {
            "issuer": issuer,
            "authorization_endpoint": f"{issuer}/authorize",
            "token_endpoint": f"{issuer}/token",
            "registration_endpoint": f"{issuer}/register",
            "revocation_endpoint": f"{issuer}/revoke",
            "code_challenge_methods_supported": ["S256"],
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
        }
    )


async def register(request: Request) -> JSONResponse:
    body = await request.json()
    client_id = "client-" + secrets.token_hex(4)
    state["clients"][client_id] = body.get("redirect_uris", [])
    state["stats"]["registrations"] += 1
    return JSONResponse({"client_id": client_id, **body}, status_code=201)


async def authorize(request: Request) -> Response:
    q = request.query_params
    client = state["clients"].get(q.get("client_id"))
    if client is None or ("*" not in client and q.get("redirect_uri") not in client):
        return error(400, "invalid_client")
    if q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
        return error(400, "invalid_request")
    if q.get("resource") != f"{BASE['url']}/mcp":
        return error(400, "invalid_target")
    code = secrets.token_urlsafe(16)
    state["codes"][code] = {
        "client_id": q["client_id"],
        "redirect_uri": q["redirect_uri"],
        "challenge": q["code_challenge"],
        "user": q.get("user", "anonymous"),
    }
    state["stats"]["codes"] += 1
    return RedirectResponse(f"{q['redirect_uri']}?code={code}&state={q.get('state', '')}", 302)


def issue(user: str) -> dict:
    access = f"at-{user}-{secrets.token_hex(4)}"
    refresh = f"rt-{user}-{secrets.token_hex(4)}"
    state["access"][access] = user
    state["refresh"][refresh] = user
    # A user whose name starts with "long" gets hour-long tokens (used
    # without a refresh); "huge" and "vast" get absurd lifetimes, as a float
    # (1e18) and as an integer (10**18); everyone else's live 60 s.
    if user.startswith("long"):
        expires_in = 3600
    elif user.startswith("huge"):
        expires_in = 1e18
    elif user.startswith("vast"):
        expires_in = 10**18
    else:
        expires_in = 60
    return {
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": expires_in,
        "refresh_token": refresh,
    }


def client_of(request: Request, form) -> str | None:
    """The client: HTTP Basic (a confidential client; its secret is
    recorded for the tests) or the form's `client_id`."""
    header = request.headers.get("authorization", "")
    if header.lower().startswith("basic "):
        user, _, secret = base64.b64decode(header[6:]).decode().partition(":")
        state["stats"]["basic_secrets"].append(secret)
        return user
    return form.get("client_id")


async def token(request: Request) -> JSONResponse:
    form = await request.form()
    if form.get("grant_type") == "authorization_code":
        grant = state["codes"].pop(form.get("code", ""), None)
        if grant is None or grant["client_id"] != client_of(request, form):
            return error(400, "invalid_grant")
        if grant["redirect_uri"] != form.get("redirect_uri"):
            return error(400, "invalid_grant")
        digest = hashlib.sha256(form.get("code_verifier", "").encode()).digest()
        if base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != grant["challenge"]:
            return error(400, "invalid_grant")
        state["stats"]["exchanges"] += 1
        return JSONResponse(issue(grant["user"]))
    if form.get("grant_type") == "refresh_token":
        user = state["refresh"].pop(form.get("refresh_token", ""), None)
        if user is None:
            return error(400, "invalid_grant")
        state["stats"]["refreshes"] += 1
        return JSONResponse(issue(user))
    return error(400, "unsupported_grant_type")


async def revoke(request: Request) -> Response:
    form = await request.form()
    revoked = form.get("token", "")
    user = state["refresh"].pop(revoked, None) or state["access"].pop(revoked, None)
    if user is not None:
        # Everything of that user's grant goes.
        for kind in ("access", "refresh"):
            for token in [t for t, u in state[kind].items() if u == user]:
                del state[kind][token]
    state["stats"]["revocations"] += 1
    return Response(status_code=200)


async def stats(_request: Request) -> JSONResponse:
    return JSONResponse(state["stats"])


class AuthGate:
    """Lets every MCP message through but `tools/call`, which needs a live
    bearer token this server issued."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["path"] != "/mcp" or scope["method"] != "POST":
            return await self.app(scope, receive, send)
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        try:
            method = json.loads(body).get("method")
        except Exception:
            method = None
        headers = dict(scope["headers"])
        bearer = headers.get(b"authorization", b"").decode().removeprefix("Bearer ")
        if method == "tools/call" and bearer not in state["access"]:
            challenge = (
                f'Bearer resource_metadata="{BASE["url"]}/.well-known/oauth-protected-resource/mcp"'
            )
            response = JSONResponse(
                {"error": "invalid_token"},
                status_code=401,
                headers={"WWW-Authenticate": challenge},
            )
            return await response(scope, receive, send)
        sent = {"done": False}

        async def replay():
            if not sent["done"]:
                sent["done"] = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)


def main() -> None:
    app = server.streamable_http_app()
    app.router.routes.extend(
        [
            Route("/.well-known/oauth-protected-resource/mcp", resource_metadata),
            Route("/.well-known/oauth-authorization-server/as", server_metadata),
            Route("/as/register", register, methods=["POST"]),
            Route("/as/authorize", authorize),
            Route("/as/token", token, methods=["POST"]),
            Route("/as/revoke", revoke, methods=["POST"]),
            Route("/_confer/stats", stats),
        ]
    )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    BASE["url"] = f"http://127.0.0.1:{port}"
    uvicorn_server = uvicorn.Server(uvicorn.Config(AuthGate(app), log_level="warning", lifespan="on"))

    async def serve() -> None:
        task = asyncio.create_task(uvicorn_server.serve(sockets=[sock]))
        while not uvicorn_server.started:
            await asyncio.sleep(0.01)
        print(f"MCP server running on http://127.0.0.1:{port}", flush=True)
        await task

    asyncio.run(serve())


if __name__ == "__main__":
    sys.exit(main())
