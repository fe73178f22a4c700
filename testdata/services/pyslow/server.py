#!/usr/bin/env python3
"""pyslow: a Python (stdlib only) service whose handler blocks on a slow peer.

GET /quote asks the peer (--peer HOST:PORT, e.g. slowpeer, which answers
after 20 ms) over a plain socket on every request: fetch_quote sends an
HTTP request and blocks in recv until the peer answers. The CPU is idle
while it waits, so only a wall-clock profiler (py-spy --idle) names it.
--mode fixed keeps the peer's answer for a second. At exit (SIGTERM) it
prints how long its calls took: "downstream calls: N waits, mean X ms".

Flags: --addr HOST:PORT (default 127.0.0.1:8080), --peer HOST:PORT,
--mode buggy|fixed (also -addr, -peer, -mode). GET /healthz answers at once;
GET /stats prints the calls so far and the seconds they took.
"""

import argparse
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PEER = ("127.0.0.1", 0)
CACHE = {"at": 0.0, "quote": b""}
CACHE_LOCK = threading.Lock()
CALLS = {"n": 0, "s": 0.0}  # how long fetch_quote waited, as the service saw it
CALLS_LOCK = threading.Lock()


def fetch_quote():
    """Ask the peer for a quote over a new connection; blocks in recv."""
    with socket.create_connection(PEER, timeout=5) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: peer\r\nConnection: close\r\n\r\n")
        chunks = []
        while True:
            b = s.recv(4096)
            if not b:
                break
            chunks.append(b)
    resp = b"".join(chunks)
    return resp.split(b"\r\n\r\n", 1)[-1]


def cached_quote():
    with CACHE_LOCK:
        if time.monotonic() - CACHE["at"] > 1.0:
            CACHE["quote"], CACHE["at"] = fetch_quote(), time.monotonic()
        return CACHE["quote"]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mode = "buggy"

    def setup(self):
        super().setup()
        # headers and body go out in two writes: without this, Nagle's
        # algorithm holds the body until the client's delayed ACK (40 ms).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self):
        if self.path.startswith("/healthz"):
            body = b"ok\n"
        elif self.path.startswith("/stats"):
            with CALLS_LOCK:
                body = b"%d %.6f\n" % (CALLS["n"], CALLS["s"])
        elif self.path.startswith("/quote") and self.mode == "buggy":
            start = time.monotonic()
            body = fetch_quote()
            with CALLS_LOCK:
                CALLS["n"] += 1
                CALLS["s"] += time.monotonic() - start
        elif self.path.startswith("/quote"):
            body = cached_quote()
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main(argv):
    p = argparse.ArgumentParser(prog="pyslow")
    p.add_argument("--addr", "-addr", default="127.0.0.1:8080")
    p.add_argument("--peer", "-peer", required=True)
    p.add_argument("--mode", "-mode", default="buggy", choices=["buggy", "fixed"])
    a = p.parse_args(argv)
    host, _, port = a.addr.rpartition(":")
    phost, _, pport = a.peer.rpartition(":")
    global PEER
    PEER = (phost, int(pport))
    Handler.mode = a.mode
    srv = ThreadingHTTPServer((host, int(port)), Handler)
    srv.daemon_threads = True
    print("listening on http://%s:%d" % srv.server_address[:2], flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        n = CALLS["n"]
        print("downstream calls: %d waits, mean %.3f ms" % (n, 1000 * CALLS["s"] / n if n else 0.0), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
