"""The messaging vendors of the channels tests (marketplace-channels.md
Acceptance 1): Telegram's Bot API, Slack's Web API and the WhatsApp Cloud
(Graph) API, on one stdlib HTTP server. Every request unlike what the
vendors document (path, method, header, content type, body fields) is
recorded as an error, which the test asserts empty.

Paths: /bot{token}/{method} (Telegram), /slack/api/{method} (Slack),
/graph/{version}/... (WhatsApp). Control: GET /_calls -> {calls, errors};
POST /_next {path_suffix, status, body} queues one canned answer; POST
/_hold {path_suffix, text_prefix} makes the next matching send hang unanswered
and unrecorded (listed under `held`), as a send the vendor never took would,
until its connection closes; POST
/_sign {secret, timestamp, body} -> {signature} made by slack-sdk's
SignatureVerifier (not Confer's code). Prints its port, then serves.
"""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from slack_sdk.signature import SignatureVerifier

TELEGRAM_TOKENS = {"123456:good-token": {"id": 123456, "username": "confer_test_bot"},
                   "999:other-token": {"id": 999, "username": "other_bot"}}
SLACK_TOKENS = {"xoxb-good": {"team_id": "T1", "user_id": "UBOT", "bot_id": "B1"}}
WHATSAPP = {"token": "EAAG-good", "number_id": "1098765", "display": "+1 555-010-0200"}
VERSION = "v23.0"

lock = threading.Lock()
calls = []
errors = []
canned = []
holds = []
held = []


def error(text):
    with lock:
        errors.append(text)


def exact_keys(body, required, optional=()):
    keys = set(body)
    missing = set(required) - keys
    extra = keys - set(required) - set(optional)
    return missing, extra


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def record(self, body):
        with lock:
            calls.append({"method": self.command, "path": self.path,
                          "headers": {k.lower(): v for k, v in self.headers.items()},
                          "body": body})

    def hold_if_asked(self, text):
        """Hangs on a send a hold matches until its client goes away."""
        with lock:
            hit = next((h for h in holds if self.path.endswith(h["path_suffix"])
                        and text.startswith(h["text_prefix"])), None)
            if hit is None:
                return False
            holds.remove(hit)
            held.append({"path": self.path, "text": text})
        self.close_connection = True
        self.connection.settimeout(60)
        try:
            while self.connection.recv(1024):
                pass
        except OSError:
            pass
        return True

    def canned_for(self):
        with lock:
            for i, item in enumerate(canned):
                if self.path.endswith(item["path_suffix"]):
                    return canned.pop(i)
        return None

    def json_body(self, raw, content_type="application/json"):
        given = self.headers.get("Content-Type", "")
        if not given.startswith(content_type):
            error(f"{self.path}: content type {given!r}, expected {content_type}")
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            error(f"{self.path}: the body is not JSON")
            return {}

    def do_GET(self):
        if self.path == "/_calls":
            with lock:
                return self.answer(200, {"calls": calls, "errors": errors, "held": held})
        self.route(b"")

    def do_POST(self):
        raw = self.read_body()
        if self.path == "/_next":
            with lock:
                canned.append(json.loads(raw))
            return self.answer(200, {"ok": True})
        if self.path == "/_hold":
            with lock:
                holds.append(json.loads(raw))
            return self.answer(200, {"ok": True})
        if self.path == "/_sign":
            ask = json.loads(raw)
            verifier = SignatureVerifier(ask["secret"])
            signature = verifier.generate_signature(timestamp=ask["timestamp"], body=ask["body"])
            return self.answer(200, {"signature": signature})
        self.route(raw)

    def route(self, raw):
        if self.path.startswith("/bot"):
            return self.telegram(raw)
        if self.path.startswith("/slack/api/"):
            return self.slack(raw)
        if self.path.startswith("/graph/"):
            return self.whatsapp(raw)
        error(f"unknown path {self.command} {self.path}")
        self.answer(404, {"error": "no such path"})

    def telegram(self, raw):
        token, _, method = self.path[len("/bot"):].partition("/")
        body = self.json_body(raw) if self.command == "POST" else {}
        if method == "sendMessage" and self.hold_if_asked(str(body.get("text", ""))):
            return
        self.record(body)
        bot = TELEGRAM_TOKENS.get(token)
        if bot is None:
            return self.answer(401, {"ok": False, "error_code": 401, "description": "Unauthorized"})
        hit = self.canned_for()
        if hit:
            return self.answer(hit["status"], hit["body"], hit.get("headers", []))
        if method == "getMe" and self.command == "GET":
            return self.answer(200, {"ok": True, "result": {"id": bot["id"], "is_bot": True,
                                                            "first_name": "Confer", "username": bot["username"]}})
        if method == "setWebhook" and self.command == "POST":
            missing, extra = exact_keys(body, ["url", "secret_token", "allowed_updates"])
            if missing or extra:
                error(f"setWebhook: missing {missing} extra {extra}")
            if body.get("allowed_updates") != ["message"]:
                error(f"setWebhook: allowed_updates {body.get('allowed_updates')}")
            secret = body.get("secret_token", "")
            if len(secret) != 64 or not all(c.isalnum() or c in "_-" for c in secret):
                error("setWebhook: secret_token is not 64 of [A-Za-z0-9_-]")
            return self.answer(200, {"ok": True, "result": True, "description": "Webhook was set"})
        if method == "deleteWebhook" and self.command == "POST":
            return self.answer(200, {"ok": True, "result": True})
        if method == "sendMessage" and self.command == "POST":
            missing, extra = exact_keys(body, ["chat_id", "text"])
            if missing or extra:
                error(f"sendMessage: missing {missing} extra {extra}")
            if not isinstance(body.get("chat_id"), int) or not body.get("text"):
                error("sendMessage: chat_id must be an integer, text non-empty")
            if len(body.get("text", "").encode("utf-16-le")) // 2 > 4096:
                error("sendMessage: text over 4096 UTF-16 units")
            return self.answer(200, {"ok": True, "result": {"message_id": len(calls)}})
        error(f"telegram: unexpected {self.command} {method}")
        self.answer(404, {"ok": False, "error_code": 404, "description": "Not Found"})

    def slack(self, raw):
        method = self.path[len("/slack/api/"):]
        auth = self.headers.get("Authorization", "")
        token = auth[len("Bearer "):] if auth.startswith("Bearer ") else ""
        if method == "auth.test":
            self.record({})
            if self.command != "POST":
                error("auth.test: not a POST")
            if token not in SLACK_TOKENS:
                return self.answer(200, {"ok": False, "error": "invalid_auth"})
            team = SLACK_TOKENS[token]
            return self.answer(200, {"ok": True, "url": "https://t1.slack.com/", "team": "T",
                                     "user": "confer", "team_id": team["team_id"],
                                     "user_id": team["user_id"], "bot_id": team["bot_id"]})
        if method == "chat.postMessage" and self.command == "POST":
            body = self.json_body(raw, "application/json; charset=utf-8")
            self.record(body)
            if token not in SLACK_TOKENS:
                return self.answer(200, {"ok": False, "error": "invalid_auth"})
            missing, extra = exact_keys(body, ["channel", "text"], ["thread_ts"])
            if missing or extra:
                error(f"chat.postMessage: missing {missing} extra {extra}")
            hit = self.canned_for()
            if hit:
                return self.answer(hit["status"], hit["body"], hit.get("headers", []))
            return self.answer(200, {"ok": True, "channel": body.get("channel"), "ts": "1700000000.000200"})
        self.record({})
        error(f"slack: unexpected {self.command} {method}")
        self.answer(404, {"ok": False, "error": "unknown_method"})

    def whatsapp(self, raw):
        rest = self.path[len("/graph/"):]
        version, _, rest = rest.partition("/")
        if version != VERSION:
            error(f"whatsapp: version {version}")
        if self.headers.get("Authorization") != f"Bearer {WHATSAPP['token']}":
            self.record({})
            return self.answer(401, {"error": {"message": "Invalid OAuth access token.", "type": "OAuthException", "code": 190}})
        if self.command == "GET" and rest == f"{WHATSAPP['number_id']}?fields=display_phone_number":
            self.record({})
            return self.answer(200, {"display_phone_number": WHATSAPP["display"], "id": WHATSAPP["number_id"]})
        if self.command == "POST" and rest == f"{WHATSAPP['number_id']}/messages":
            body = self.json_body(raw)
            self.record(body)
            missing, extra = exact_keys(body, ["messaging_product", "recipient_type", "to", "type", "text"])
            if missing or extra:
                error(f"messages: missing {missing} extra {extra}")
            if body.get("messaging_product") != "whatsapp" or body.get("recipient_type") != "individual" \
                    or body.get("type") != "text" or body.get("text", {}).get("preview_url") is not False \
                    or not body.get("text", {}).get("body"):
                error(f"messages: not a text message as documented: {body}")
            return self.answer(200, {"messaging_product": "whatsapp",
                                     "contacts": [{"input": body.get("to"), "wa_id": body.get("to")}],
                                     "messages": [{"id": "wamid.sent"}]})
        self.record({})
        error(f"whatsapp: unexpected {self.command} {rest}")
        self.answer(404, {"error": {"message": "Unknown path", "code": 100}})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
sys.stdout.close()
server.serve_forever()
