"""daytona for the computer tests (computer.md §1, Acceptance 7): its API
and its sandboxes' toolbox on one stdlib HTTP server. Every request unlike
daytona's documents (path, method, bearer key, body fields, the command's
`timeout -k 5 {s} bash -c` of base64) is recorded as an error, which the
test asserts empty. A sandbox starts on the second look (so polling is
needed); its paths under /home/daytona are a directory's, and commands run
for real with bash. Control: GET /_calls -> {calls, errors, sandboxes:
{id: state}}. Prints its port.
"""

import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

API_KEY = "daytona-good"
ROOT = tempfile.mkdtemp(prefix="daytona-mock-")
COMMAND = re.compile(r'^timeout -k 5 (\d+) bash -c "\$\(echo ([A-Za-z0-9+/=]+) \| base64 -d\)"$')

lock = threading.Lock()
calls = []
errors = []
sandboxes = {}  # id -> {state, labels, root, looks}


def error(text):
    with lock:
        errors.append(text)


def host(box, path):
    if not path.startswith("/home/daytona"):
        error(f"a path outside /home/daytona: {path}")
    return box["root"] + path


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=None, content_type="application/json"):
        data = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.dispatch(b"")

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.dispatch(self.rfile.read(length) if length else b"")

    def do_DELETE(self):
        self.dispatch(b"")

    def record(self, body):
        with lock:
            calls.append({"method": self.command, "path": self.path, "body": body})

    def dispatch(self, raw):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/_calls":
            with lock:
                states = {k: v["state"] for k, v in sandboxes.items()}
                return self.answer(200, {"calls": calls, "errors": errors, "sandboxes": states})
        if self.headers.get("Authorization") != f"Bearer {API_KEY}":
            self.record({})
            return self.answer(401, {"statusCode": 401, "message": "Unauthorized"})
        parts = url.path.strip("/").split("/")
        query = urllib.parse.parse_qs(url.query)
        if parts[0] == "toolbox":
            return self.toolbox(parts[1:], query, raw)
        body = json.loads(raw) if raw and self.headers.get("Content-Type", "").startswith("application/json") else {}
        self.record(body)
        if parts == ["sandbox"] and self.command == "POST":
            need = {"class", "env", "labels", "public", "networkBlockAll"}
            keys = set(body)
            if not need <= keys or keys - need - {"networkAllowList", "snapshot"}:
                error(f"create: keys {sorted(keys)}")
            if body.get("public") is not False or body.get("class") not in ("small", "medium", "large"):
                error(f"create: {body}")
            if set(body.get("labels", {})) != {"confer_install", "confer_instance"}:
                error(f"create: labels {body.get('labels')}")
            sid = str(uuid.uuid4())
            box = {"state": "creating", "labels": body.get("labels", {}), "root": os.path.join(ROOT, sid), "looks": 0}
            os.makedirs(box["root"] + "/home/daytona", exist_ok=True)
            with lock:
                sandboxes[sid] = box
            return self.answer(200, self.shape(sid, box))
        if parts == ["sandbox"] and self.command == "GET":
            wanted = json.loads(query.get("labels", ["{}"])[0])
            with lock:
                found = [self.shape(k, v) for k, v in sandboxes.items()
                         if all(v["labels"].get(a) == b for a, b in wanted.items())]
            return self.answer(200, found)
        if len(parts) >= 2 and parts[0] == "sandbox":
            with lock:
                box = sandboxes.get(parts[1])
            if box is None:
                return self.answer(404, {"statusCode": 404, "message": "Sandbox not found"})
            action = parts[2] if len(parts) > 2 else None
            if self.command == "GET" and action is None:
                box["looks"] += 1
                if box["state"] in ("creating", "starting") and box["looks"] >= 2:
                    box["state"] = "started"
                return self.answer(200, self.shape(parts[1], box))
            if self.command == "DELETE" and action is None:
                with lock:
                    del sandboxes[parts[1]]
                shutil.rmtree(box["root"], ignore_errors=True)
                return self.answer(200, {})
            if self.command == "POST" and action == "stop":
                box["state"] = "stopped"
                return self.answer(200, {})
            if self.command == "POST" and action == "start":
                box["state"], box["looks"] = "starting", 0
                return self.answer(200, self.shape(parts[1], box))
        error(f"api: unexpected {self.command} {url.path}")
        self.answer(404, {"statusCode": 404, "message": "Not found"})

    def shape(self, sid, box):
        port = self.server.server_address[1]
        return {"id": sid, "state": box["state"], "labels": box["labels"], "public": False,
                "toolboxProxyUrl": f"http://127.0.0.1:{port}/toolbox"}

    def toolbox(self, parts, query, raw):
        with lock:
            box = sandboxes.get(parts[0]) if parts else None
        if box is None or box["state"] != "started":
            self.record({})
            error(f"toolbox: a sandbox that is not started: {parts}")
            return self.answer(400, {"message": "sandbox not started"})
        rest = parts[1:]
        if rest == ["process", "execute"] and self.command == "POST":
            body = json.loads(raw)
            self.record(body)
            if set(body) != {"command", "cwd", "timeout"}:
                error(f"execute: {body}")
            match = COMMAND.match(body.get("command", ""))
            if not match:
                error(f"execute: the command is not timeout -k 5 of base64: {body.get('command')}")
                return self.answer(400, {"message": "bad command"})
            script = base64.b64decode(match.group(2)).decode().replace("/home/daytona", box["root"] + "/home/daytona")
            done = subprocess.run(["timeout", "-k", "5", match.group(1), "bash", "-c", script],
                                  cwd=host(box, body["cwd"]), capture_output=True)
            return self.answer(200, {"exitCode": done.returncode, "result": done.stdout.decode(errors="replace")})
        if rest in (["files", "download"], ["files", "upload"]):
            if len(query.get("path", [])) != 1:
                error(f"files: query {query}")
            path = host(box, query["path"][0])
            self.record({"path": query["path"][0]})
            if rest[1] == "download" and self.command == "GET":
                if os.path.isdir(path):
                    return self.answer(400, {"message": "path is a directory"})
                if not os.path.exists(path):
                    return self.answer(404, {"message": "file not found"})
                with open(path, "rb") as f:
                    return self.answer(200, f.read(), "application/octet-stream")
            if rest[1] == "upload" and self.command == "POST":
                kind = self.headers.get("Content-Type", "")
                if not kind.startswith("multipart/form-data; boundary="):
                    error(f"upload: content type {kind}")
                    return self.answer(400, {"message": "not multipart"})
                part = raw.split(b"--" + kind.split("boundary=", 1)[1].encode())[1]
                head, _, content = part.partition(b"\r\n\r\n")
                if b'name="file"' not in head:
                    error("upload: no part named file")
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(content[:-2] if content.endswith(b"\r\n") else content)
                return self.answer(200, {})
        self.record({})
        error(f"toolbox: unexpected {self.command} {rest}")
        self.answer(404, {"message": "Not found"})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
sys.stdout.close()
server.serve_forever()
