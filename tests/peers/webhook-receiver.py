"""A completion-webhook receiver for the runner tests (runners.md
Acceptance 6): pytest-httpserver serves POST /hook on loopback, answers
500 to the first delivery and 204 to the rest, and verifies every request
with the Standard Webhooks reference library. It prints `PORT <n>`, reads
the runner's `whsec_` secret from stdin, then prints one JSON line per
request: its webhook-id, whether it verified, when it came, its type."""

import json
import sys
import time

from pytest_httpserver import HTTPServer
from standardwebhooks.webhooks import Webhook
from werkzeug.wrappers import Response

secret = {}
seen = []


def handler(request):
    body = request.get_data()
    try:
        Webhook(secret["value"]).verify(body, dict(request.headers))
        verified = True
    except Exception as error:  # reported, not raised: the test asserts
        verified = str(error) or type(error).__name__
    seen.append(1)
    print(
        json.dumps(
            {
                "id": request.headers.get("webhook-id"),
                "verified": verified,
                "at": time.time(),
                "type": json.loads(body).get("type"),
            }
        ),
        flush=True,
    )
    return Response(status=500 if len(seen) == 1 else 204)


server = HTTPServer(host="127.0.0.1", port=0)
server.expect_request("/hook", method="POST").respond_with_handler(handler)
server.start()
print(f"PORT {server.port}", flush=True)
secret["value"] = sys.stdin.readline().strip()
sys.stdin.read()  # until the test closes stdin
server.stop()
