#!/usr/bin/env python3
"""pyslow: a Python (stdlib only) service whose handler blocks on a slow peer.

GET /quote asks the peer (--peer HOST:PORT, e.g. slowpeer, which answers
after 20 ms) over a plain socket on every request: fetch_quote sends an
HTTP request and blocks in recv until the peer answers. The CPU is idle
while it waits, so only a wall-clock profiler (py-spy --idle) names it.
--mode fixed keeps the peer's answer for a second.

Flags: --addr HOST:PORT (default 127.0.0.1:8080), --peer HOST:PORT,
--mode buggy|fixed (also -addr, -peer, -mode). GET /healthz answers at once.
"""

import argparse
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PEER = ("127.0.0.1", 0)
CACHE = {"at": 0.0, "quote": b""}
CACHE_LOCK = threading.Lock()


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

    def do_GET(self):
        if self.path.startswith("/healthz"):
            body = b"ok\n"
        elif self.path.startswith("/quote"):
            body = fetch_quote() if self.mode == "buggy" else cached_quote()
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
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
