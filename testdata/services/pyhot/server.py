#!/usr/bin/env python3
"""pyhot: a Python test service with a hot pure-Python function.

GET /checksum hashes a 32 KiB payload per request. In --mode buggy the
hot function hot_checksum loops over every byte in Python; in --mode fixed
it calls zlib.adler32 (C). Both return the same Adler-32 value.
GET /healthz answers "ok".

Usage: server.py [--addr HOST:PORT] [--mode buggy|fixed]
Prints "listening on http://HOST:PORT" once it listens; stops on SIGTERM
or SIGINT. Standard library only.
"""

import argparse
import http.server
import signal
import sys
import threading
import zlib

PAYLOAD = bytes((i * 7 + i // 256) % 256 for i in range(32 * 1024))


def hot_checksum(data):
    """Adler-32 in pure Python: the planted cost."""
    a, b = 1, 0
    for byte in data:
        a = (a + byte) % 65521
        b = (b + a) % 65521
    return (b << 16) | a


def fast_checksum(data):
    """The fix: the same Adler-32 from zlib."""
    return zlib.adler32(data)


class Handler(http.server.BaseHTTPRequestHandler):
    buggy = True

    def do_GET(self):
        if self.path.startswith("/checksum"):
            fn = hot_checksum if self.buggy else fast_checksum
            self.reply(200, "%08x\n" % fn(PAYLOAD))
        elif self.path == "/healthz":
            self.reply(200, "ok\n")
        else:
            self.reply(404, "not found\n")

    def reply(self, code, text):
        body = text.encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):  # keep the log quiet under load
        pass


def main(argv):
    p = argparse.ArgumentParser(prog="pyhot")
    p.add_argument("--addr", "-addr", default="127.0.0.1:8080", help="listen on HOST:PORT (port 0 picks one)")
    p.add_argument("--mode", "-mode", choices=["buggy", "fixed"], default="buggy")
    args = p.parse_args(argv)
    host, _, port = args.addr.rpartition(":")
    Handler.buggy = args.mode == "buggy"
    srv = http.server.ThreadingHTTPServer((host, int(port)), Handler)
    srv.daemon_threads = True

    def stop(signum, frame):
        threading.Thread(target=srv.shutdown).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print("listening on http://%s:%d" % srv.server_address[:2], flush=True)
    srv.serve_forever()
    srv.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
