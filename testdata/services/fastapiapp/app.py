"""fastapiapp: a FastAPI test service, served by uvicorn, whose endpoints wait.

Planted waits, each in the application's own code:
  GET /quote       async def: fetch_quote_async awaits the peer (a downstream
                   service, e.g. slowpeer -delay 40ms) through a shared
                   httpx.AsyncClient; the coroutine is suspended while it
                   waits, so no thread's stack shows the wait.
  GET /quote-sync  def, run in FastAPI's threadpool: fetch_quote_sync asks
                   the same peer through a shared httpx.Client and blocks
                   its pool thread in recv.
  GET /nap         def, run in the threadpool: take_nap calls time.sleep(0.03).
  GET /nap-quote   def, run in the threadpool: take_nap, then fetch_quote_sync
                   (a 30 ms sleep, then one call to the peer).
  GET /stats       what the service timed of its waits so far (JSON).
  GET /healthz     ok.
--mode fixed keeps the peer's answer for a second and does not nap; the
answers are the same. At exit each process prints what it timed, one line
per wait: "downstream calls (async): N waits, mean X ms", "downstream calls
(sync): ...", "naps: ...".

Run it as deployed, `uvicorn app:app --host H --port P` with FASTAPIAPP_PEER
(HOST:PORT) and FASTAPIAPP_MODE (buggy or fixed) in the environment, or
`python3 app.py --addr HOST:PORT --peer HOST:PORT [--mode buggy|fixed]`
(also -addr, -peer, -mode; port 0 picks a free one), which prints
"listening on http://HOST:PORT" once it listens.
"""

import argparse
import contextlib
import os
import signal
import socket
import sys
import threading
import time

import httpx
import uvicorn
from fastapi import FastAPI
from fastapi.responses import JSONResponse, PlainTextResponse

CONFIG = {
    "peer": os.environ.get("FASTAPIAPP_PEER", "127.0.0.1:8081"),
    "mode": os.environ.get("FASTAPIAPP_MODE", "buggy"),
}
NAP_SECONDS = 0.03


class Stopwatch:
    """Times one kind of wait from inside the service (thread-safe)."""

    def __init__(self, name):
        self.name, self.n, self.s = name, 0, 0.0
        self.lock = threading.Lock()

    def add(self, start):
        took = time.monotonic() - start
        with self.lock:
            self.n += 1
            self.s += took

    def line(self):
        mean = 1000 * self.s / self.n if self.n else 0.0
        return "%s: %d waits, mean %.3f ms" % (self.name, self.n, mean)


ASYNC_CALLS = Stopwatch("downstream calls (async)")
SYNC_CALLS = Stopwatch("downstream calls (sync)")
NAPS = Stopwatch("naps")
CLIENTS = {}
CACHE = {"at": float("-inf"), "quote": ""}


def peer_url():
    return "http://%s/" % CONFIG["peer"]


@contextlib.asynccontextmanager
async def lifespan(app):
    if CONFIG["mode"] not in ("buggy", "fixed"):
        raise SystemExit("fastapiapp: mode %r: want buggy or fixed" % CONFIG["mode"])
    async with httpx.AsyncClient(timeout=10) as ac:
        with httpx.Client(timeout=10) as c:
            CLIENTS["async"], CLIENTS["sync"] = ac, c
            yield
    for w in (ASYNC_CALLS, SYNC_CALLS, NAPS):
        print(w.line(), flush=True)


app = FastAPI(lifespan=lifespan)


async def fetch_quote_async():
    start = time.monotonic()
    r = await CLIENTS["async"].get(peer_url())
    ASYNC_CALLS.add(start)
    r.raise_for_status()
    return r.text


def fetch_quote_sync():
    start = time.monotonic()
    r = CLIENTS["sync"].get(peer_url())
    SYNC_CALLS.add(start)
    r.raise_for_status()
    return r.text


def fresh():
    """The fixed mode's cache: the peer's answer is kept for a second."""
    return time.monotonic() - CACHE["at"] <= 1.0


def keep(quote):
    CACHE["quote"], CACHE["at"] = quote, time.monotonic()
    return quote


def take_nap():
    start = time.monotonic()
    time.sleep(NAP_SECONDS)
    NAPS.add(start)


@app.get("/quote", response_class=PlainTextResponse)
async def quote():
    if CONFIG["mode"] == "fixed" and fresh():
        return CACHE["quote"]
    return keep(await fetch_quote_async())


@app.get("/quote-sync", response_class=PlainTextResponse)
def quote_sync():
    if CONFIG["mode"] == "fixed" and fresh():
        return CACHE["quote"]
    return keep(fetch_quote_sync())


@app.get("/nap", response_class=PlainTextResponse)
def nap():
    if CONFIG["mode"] == "buggy":
        take_nap()
    return "ok\n"


@app.get("/nap-quote", response_class=PlainTextResponse)
def nap_quote():
    if CONFIG["mode"] == "fixed" and fresh():
        return CACHE["quote"]
    take_nap()
    return keep(fetch_quote_sync())


@app.get("/stats")
def stats():
    return JSONResponse({w.name: {"waits": w.n, "seconds": w.s} for w in (ASYNC_CALLS, SYNC_CALLS, NAPS)})


@app.get("/healthz", response_class=PlainTextResponse)
async def healthz():
    return "ok\n"


def main(argv):
    p = argparse.ArgumentParser(prog="fastapiapp")
    p.add_argument("--addr", "-addr", default="127.0.0.1:8080")
    p.add_argument("--peer", "-peer", default=CONFIG["peer"])
    p.add_argument("--mode", "-mode", default=CONFIG["mode"], choices=["buggy", "fixed"])
    a = p.parse_args(argv)
    CONFIG["peer"], CONFIG["mode"] = a.peer, a.mode
    host, _, port = a.addr.rpartition(":")
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets whose
    # protocol says TCP; without it, Nagle's algorithm would hold each
    # response's body until the client's delayed ACK (40 ms).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, int(port)))
    sock.listen(2048)
    print("listening on http://%s:%d" % sock.getsockname()[:2], flush=True)
    # uvicorn stops gracefully on SIGTERM and then raises it again for the
    # handler it found: this one makes that a clean exit.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    server.run(sockets=[sock])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
