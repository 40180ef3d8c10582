"""e2b for the computer tests (computer.md §1, Acceptance 7): its control
API and its sandboxes' daemon (envd) on one stdlib HTTP server. Every
request unlike e2b's documents (path, method, headers, body fields, the
Connect framing) is recorded as an error, which the test asserts empty.

A sandbox is a directory: its paths under /home/user are that directory's,
and commands run for real with bash, the paths in them rewritten. Control:
GET /_calls -> {calls, errors, sandboxes: {id: state}}. Prints its port.
"""

import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

API_KEY = "e2b-good"
ROOT = tempfile.mkdtemp(prefix="e2b-mock-")
BASIC = "Basic " + base64.b64encode(b"user:").decode()

lock = threading.Lock()
calls = []
errors = []
sandboxes = {}  # id -> {token, state, metadata, root, procs: {pid: Popen}}


def error(text):
    with lock:
        errors.append(text)


def host_path(box, path):
    if not path.startswith("/home/user"):
        error(f"a path outside /home/user: {path}")
    return box["root"] + path


def rewrite(box, text):
    return text.replace("/home/user", box["root"] + "/home/user")


def envelope(flags, message):
    data = json.dumps(message).encode()
    return bytes([flags]) + len(data).to_bytes(4, "big") + data


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=None, content_type="application/json"):
        data = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        self.send_response(status)
        if data:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def record(self, body):
        with lock:
            calls.append({"method": self.command, "path": self.path, "body": body})

    def do_GET(self):
        self.dispatch(b"")

    def do_POST(self):
        self.dispatch(self.body())

    def do_DELETE(self):
        self.dispatch(b"")

    def dispatch(self, raw):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/_calls":
            with lock:
                states = {k: v["state"] for k, v in sandboxes.items()}
                return self.answer(200, {"calls": calls, "errors": errors, "sandboxes": states})
        if self.headers.get("E2b-Sandbox-Id") is not None:
            return self.envd(url, raw)
        return self.control(url, raw)

    # The control API.
    def control(self, url, raw):
        if self.headers.get("X-API-Key") != API_KEY:
            self.record({})
            return self.answer(401, {"code": 401, "message": "Invalid API key"})
        parts = url.path.strip("/").split("/")
        body = json.loads(raw) if raw else {}
        self.record(body)
        if self.command == "POST" and parts == ["sandboxes"]:
            need = {"templateID", "timeout", "secure", "allow_internet_access", "metadata", "envVars"}
            keys = set(body)
            if not need <= keys or keys - need - {"network"}:
                error(f"create: keys {sorted(keys)}")
            if body.get("secure") is not True or not isinstance(body.get("timeout"), int):
                error(f"create: secure/timeout {body}")
            meta = body.get("metadata", {})
            if set(meta) != {"confer_install", "confer_instance"}:
                error(f"create: metadata {meta}")
            sid = "sbx" + uuid.uuid4().hex[:12]
            box = {"token": uuid.uuid4().hex, "state": "running", "metadata": meta,
                   "root": os.path.join(ROOT, sid), "procs": {}, "template": body.get("templateID")}
            os.makedirs(box["root"] + "/home/user", exist_ok=True)
            with lock:
                sandboxes[sid] = box
            return self.answer(201, {"templateID": box["template"], "sandboxID": sid, "clientID": "c",
                                     "envdVersion": "0.2.0", "envdAccessToken": box["token"]})
        if self.command == "GET" and parts == ["v2", "sandboxes"]:
            query = urllib.parse.parse_qs(url.query)
            states = set(query.get("state", []))
            wanted = dict(kv.split("=", 1) for kv in query.get("metadata", []))
            with lock:
                found = [{"sandboxID": k, "templateID": v["template"], "metadata": v["metadata"],
                          "state": v["state"]} for k, v in sandboxes.items()
                         if v["state"] in states and all(v["metadata"].get(a) == b for a, b in wanted.items())]
            return self.answer(200, found)
        if len(parts) >= 2 and parts[0] == "sandboxes":
            with lock:
                box = sandboxes.get(parts[1])
            if box is None:
                return self.answer(404, {"code": 404, "message": "sandbox not found"})
            action = parts[2] if len(parts) > 2 else None
            if self.command == "DELETE" and action is None:
                with lock:
                    del sandboxes[parts[1]]
                shutil.rmtree(box["root"], ignore_errors=True)
                return self.answer(204)
            if self.command == "POST" and action == "pause":
                if box["state"] == "paused":
                    return self.answer(409, {"code": 409, "message": "already paused"})
                box["state"] = "paused"
                return self.answer(204)
            if self.command == "POST" and action == "connect":
                if set(body) != {"timeout"}:
                    error(f"connect: {body}")
                box["state"] = "running"
                return self.answer(200, {"sandboxID": parts[1], "templateID": box["template"],
                                         "clientID": "c", "envdVersion": "0.2.0",
                                         "envdAccessToken": box["token"]})
            if self.command == "POST" and action == "timeout":
                if set(body) != {"timeout"} or box["state"] != "running":
                    error(f"timeout: {body} on a {box['state']} sandbox")
                return self.answer(204)
        error(f"control: unexpected {self.command} {url.path}")
        self.answer(404, {"code": 404, "message": "not found"})

    # envd.
    def envd(self, url, raw):
        sid = self.headers.get("E2b-Sandbox-Id")
        with lock:
            box = sandboxes.get(sid)
        if self.headers.get("E2b-Sandbox-Port") != "49983" or self.headers.get("Authorization") != BASIC:
            error(f"envd: port or user header wrong on {url.path}")
        if box is None or box["state"] != "running":
            self.record({"sandbox": sid})
            return self.answer(502, {"message": "sandbox not running"})
        if self.headers.get("X-Access-Token") != box["token"]:
            self.record({})
            return self.answer(401, {"message": "bad access token"})
        if url.path == "/process.Process/Start" and self.command == "POST":
            return self.start(box, raw)
        if url.path == "/process.Process/SendSignal" and self.command == "POST":
            body = json.loads(raw)
            self.record(body)
            if not self.headers.get("Content-Type", "").startswith("application/json"):
                error("SendSignal: not application/json")
            proc = box["procs"].get(body.get("process", {}).get("pid"))
            if body.get("signal") != "SIGNAL_SIGKILL" or proc is None:
                error(f"SendSignal: {body}")
            else:
                os.killpg(proc.pid, signal.SIGKILL)
            return self.answer(200, {})
        if url.path == "/files":
            query = urllib.parse.parse_qs(url.query)
            if query.get("username") != ["user"] or len(query.get("path", [])) != 1:
                error(f"files: query {url.query}")
            path = host_path(box, query["path"][0])
            if self.command == "GET":
                self.record({"path": query["path"][0]})
                if os.path.isdir(path):
                    return self.answer(400, {"message": "path is a directory"})
                if not os.path.exists(path):
                    return self.answer(404, {"message": "file not found"})
                with open(path, "rb") as f:
                    return self.answer(200, f.read(), "application/octet-stream")
            if self.command == "POST":
                self.record({"path": query["path"][0]})
                kind = self.headers.get("Content-Type", "")
                if not kind.startswith("multipart/form-data; boundary="):
                    error(f"files upload: content type {kind}")
                    return self.answer(400, {"message": "not multipart"})
                boundary = kind.split("boundary=", 1)[1].encode()
                part = raw.split(b"--" + boundary)[1]
                head, _, content = part.partition(b"\r\n\r\n")
                if b'name="file"' not in head:
                    error("files upload: no part named file")
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(content[: -2] if content.endswith(b"\r\n") else content)
                return self.answer(200, [{"name": os.path.basename(path), "type": "file", "path": query["path"][0]}])
        error(f"envd: unexpected {self.command} {url.path}")
        self.answer(404, {"message": "not found"})

    def start(self, box, raw):
        if self.headers.get("Content-Type") != "application/connect+json":
            error(f"Start: content type {self.headers.get('Content-Type')}")
        if raw[:1] != b"\x00" or int.from_bytes(raw[1:5], "big") != len(raw) - 5:
            error("Start: not one Connect envelope")
        body = json.loads(raw[5:])
        self.record(body)
        process = body.get("process", {})
        if set(body) != {"process"} or process.get("cmd") != "/bin/bash" \
                or len(process.get("args", [])) != 2 or process["args"][0] != "-c" \
                or not isinstance(process.get("envs"), dict) or "cwd" not in process:
            error(f"Start: {body}")
        command = rewrite(box, process["args"][1])
        cwd = host_path(box, process["cwd"])
        env = dict(process["envs"])
        env["PATH"] = os.environ.get("PATH", "/usr/bin:/bin")
        proc = subprocess.Popen(["/bin/bash", "-c", command], cwd=cwd, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        box["procs"][proc.pid] = proc
        self.send_response(200)
        self.send_header("Content-Type", "application/connect+json")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        out = threading.Lock()

        def send(flags, message):
            with out:
                try:
                    self.wfile.write(envelope(flags, message))
                    self.wfile.flush()
                except OSError:
                    pass

        send(0, {"event": {"start": {"pid": proc.pid}}})

        def pump(stream, name):
            for chunk in iter(lambda: stream.read1(4096), b""):
                send(0, {"event": {"data": {name: base64.b64encode(chunk).decode()}}})

        pumps = [threading.Thread(target=pump, args=(proc.stdout, "stdout")),
                 threading.Thread(target=pump, args=(proc.stderr, "stderr"))]
        for t in pumps:
            t.start()
        code = proc.wait()
        for t in pumps:
            t.join()
        end = {"exited": code >= 0, "status": f"exit status {code}" if code >= 0 else "signal: killed"}
        if code > 0:
            end["exitCode"] = code
        send(0, {"event": {"end": end}})
        send(2, {})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
sys.stdout.close()
server.serve_forever()
