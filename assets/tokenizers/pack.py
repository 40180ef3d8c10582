"""Repacks a tiktoken rank file (base64 token, space, rank per line) as
length-prefixed token bytes in rank order, on standard output."""

import base64
import sys

out = bytearray()
for expected, line in enumerate(open(sys.argv[1], encoding="ascii")):
    token, rank = line.split()
    if int(rank) != expected:
        sys.exit(f"rank {rank} at line {expected}: the ranks are not dense")
    raw = base64.b64decode(token)
    if not 0 < len(raw) < 256:
        sys.exit(f"token of {len(raw)} bytes at rank {rank}")
    out.append(len(raw))
    out += raw
sys.stdout.buffer.write(out)
