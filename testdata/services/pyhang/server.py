#!/usr/bin/env python3
"""pyhang: a Python (stdlib only) service blocked on a downstream that never answers.

GET /quote asks the peer (--peer HOST:PORT) over a plain socket, with no
timeout: fetch_quote sends a request and blocks in recv until the peer
answers. A peer that accepts the connection and never answers (a hung
downstream) holds every request thread there for ever, and the service
stops answering /quote; GET /healthz still answers at once, as does a
peer that answers (slowpeer). --mode fixed gives the socket a one-second
timeout and answers 504 when it expires.

Flags: --addr HOST:PORT (default 127.0.0.1:8080), --peer HOST:PORT,
--mode buggy|fixed (also -addr, -peer, -mode).
"""

import argparse
import signal
import socket
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PEER = ("127.0.0.1", 0)
TIMEOUT = None  # seconds a call to the peer may take; None waits for ever


def fetch_quote():
    """Ask the peer for a quote over a new connection; blocks in recv."""
    with socket.create_connection(PEER, timeout=TIMEOUT) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: peer\r\nConnection: close\r\n\r\n")
        chunks = []
        while True:
            b = s.recv(4096)
            if not b:
                break
            chunks.append(b)
    return b"".join(chunks).split(b"\r\n\r\n", 1)[-1]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        status = 200
        if self.path.startswith("/healthz"):
            body = b"ok\n"
        elif self.path.startswith("/quote"):
            try:
                body = fetch_quote()
            except socket.timeout:
                status, body = 504, b"the peer did not answer\n"
        else:
            self.send_error(404)
            return
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main(argv):
    p = argparse.ArgumentParser(prog="pyhang")
    p.add_argument("--addr", "-addr", default="127.0.0.1:8080")
    p.add_argument("--peer", "-peer", required=True)
    p.add_argument("--mode", "-mode", default="buggy", choices=["buggy", "fixed"])
    a = p.parse_args(argv)
    host, _, port = a.addr.rpartition(":")
    phost, _, pport = a.peer.rpartition(":")
    global PEER, TIMEOUT
    PEER = (phost, int(pport))
    if a.mode == "fixed":
        TIMEOUT = 1.0
    srv = ThreadingHTTPServer((host, int(port)), Handler)
    srv.daemon_threads = True
    print("listening on http://%s:%d" % srv.server_address[:2], flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
