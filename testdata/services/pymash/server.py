#!/usr/bin/env python3
"""pymash: a Python test service with a constructor that owns the cost.

GET /price?sku=N looks up a price in a settings tree of 200 regions x 10
SKUs. In --mode buggy each request wraps the whole tree in a new Mash (a
Hashie::Mash-like object: keys normalised, nested dicts converted to Mash
on construction) to read one value: Mash.__init__ owns the cost, spread
over deep_update, convert_key, convert_value, custom_writer and
respond_to, none of which is the culprit on its own. In --mode fixed the
Mash is built once at start-up. Both answer the same price. GET /healthz
answers "ok".

Usage: server.py [--addr HOST:PORT] [--mode buggy|fixed]
Prints "listening on http://HOST:PORT" once it listens; stops on SIGTERM
or SIGINT. Standard library only.
"""

import argparse
import http.server
import signal
import sys
import threading
from urllib.parse import parse_qs, urlsplit

SETTINGS = {
    "Region_%d" % r: {"SKU_%d" % s: {"Price": (r * 10 + s) * 3 + 7, "Currency": "EUR"} for s in range(10)}
    for r in range(200)
}


class Mash:
    """Wraps a dict: keys lower-cased, nested dicts converted on construction."""

    def __init__(self, source=None):
        self._table = {}
        self.deep_update(source or {})

    def deep_update(self, source):
        for key, value in source.items():
            key = self.convert_key(key)
            if self.respond_to(key) and isinstance(self._table[key], Mash) and isinstance(value, dict):
                self._table[key].deep_update(value)
                continue
            self.custom_writer(key, self.convert_value(value))
        return self

    def convert_key(self, key):
        return str(key).strip().lower()

    def convert_value(self, value):
        if isinstance(value, dict):
            return Mash(value)
        if isinstance(value, list):
            return [self.convert_value(v) for v in value]
        return value

    def custom_writer(self, key, value):
        self._table[key] = value

    def respond_to(self, key):
        return key in self._table or key.startswith("get_")

    def __getitem__(self, key):
        return self._table[self.convert_key(key)]


def price(settings, sku):
    entry = settings["region_%d" % (sku % 200)]["sku_%d" % (sku % 10)]
    return "%d %s\n" % (entry["price"], entry["currency"])


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    settings = None  # built once in --mode fixed

    def do_GET(self):
        url = urlsplit(self.path)
        if url.path == "/price":
            try:
                sku = int(parse_qs(url.query).get("sku", [""])[0])
            except ValueError:
                sku = -1
            if sku < 0:
                self.reply(400, "sku: want a non-negative integer\n")
                return
            settings = self.settings if self.settings is not None else Mash(SETTINGS)
            self.reply(200, price(settings, sku))
        elif url.path == "/healthz":
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
    p = argparse.ArgumentParser(prog="pymash")
    p.add_argument("--addr", "-addr", default="127.0.0.1:8080", help="listen on HOST:PORT (port 0 picks one)")
    p.add_argument("--mode", "-mode", choices=["buggy", "fixed"], default="buggy")
    args = p.parse_args(argv)
    host, _, port = args.addr.rpartition(":")
    if args.mode == "fixed":
        Handler.settings = Mash(SETTINGS)
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
