"""An MCP registry for the registry search test (marketplace-channels.md
Acceptance 7): GET /v0.1/servers as the registry's API answers it, three
servers matching "weather" over pages of `limit`, with `nextCursor`.
Records an error for any request without `search`, `limit` and
`version=latest`, or with an unknown cursor. GET /_calls -> {calls,
errors}. Prints its port, then serves.
"""

import json
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SERVERS = [
    {"server": {"$schema": "https://static.modelcontextprotocol.io/schemas/2025-10-17/server.schema.json",
                "name": f"io.example/weather-{i}", "title": f"Weather {i}",
                "description": f"Forecasts for region {i}", "version": "1.0.0",
                "websiteUrl": "https://weather.example",
                "repository": {"url": f"https://github.com/example/weather-{i}", "source": "github"},
                "remotes": [{"type": "streamable-http", "url": f"https://weather.example/{i}/mcp",
                             "headers": [{"name": "X-Api-Key", "isSecret": True}]}]},
     "_meta": {"io.modelcontextprotocol.registry/official": {
         "status": "active", "publishedAt": "2026-10-01T00:00:00Z",
         "updatedAt": "2026-10-02T00:00:00Z", "isLatest": True}}}
    for i in range(3)
]
lock = threading.Lock()
calls, errors = [], []


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/_calls":
            with lock:
                return self.answer(200, {"calls": calls, "errors": errors})
        query = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
        with lock:
            calls.append({"path": url.path, "query": query})
        if url.path != "/v0.1/servers":
            with lock:
                errors.append(f"path {url.path}")
            return self.answer(404, {"title": "Not Found", "status": 404})
        if "search" not in query or query.get("version") != "latest" or not query.get("limit", "").isdigit():
            with lock:
                errors.append(f"query {query}")
        limit = int(query.get("limit") or 30)
        start = 0
        if "cursor" in query:
            if not query["cursor"].startswith("io.example/weather-"):
                with lock:
                    errors.append(f"cursor {query['cursor']}")
            start = int(query["cursor"].rsplit("-", 1)[1]) + 1
        matching = [s for s in SERVERS if query.get("search", "") in s["server"]["name"]]
        page = matching[start:start + limit]
        more = start + limit < len(matching)
        metadata = {"count": len(page)}
        if more:
            metadata["nextCursor"] = page[-1]["server"]["name"]
        self.answer(200, {"servers": page, "metadata": metadata})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
sys.stdout.close()
server.serve_forever()
