"""dbapp: a Flask test service whose endpoint makes 101 database queries per
request (the N+1 shape), through the DB-API.

Planted cost, in the application's own code:
  GET /orders   recent_orders: the 100 latest orders with their customers'
                names. --mode buggy (the default) reads the orders with one
                query, then each order's customer with a query of its own in
                a loop over the rows (cursor.execute, 1 + 100 queries per
                request); --mode fixed reads the same rows with one JOIN.
                The answers are identical.
  GET /stats    requests and queries so far in this process.
  GET /healthz  ok.
At exit each process prints "queries: N requests, M queries, Q per request".

The database: --db sqlite (the default; an in-memory sqlite3 database of
2,000 customers and 20,000 orders, built per process at start) or --db
postgresql://USER@HOST:PORT/DB (PostgreSQL through psycopg 3, over the
network, so every query is a round trip on a socket; the tables are created
and filled at start when they are missing).

Run it as deployed, `gunicorn -w 2 app:app` with DBAPP_DB and DBAPP_MODE in
the environment, or `python3 app.py --addr HOST:PORT [--db DB]
[--mode buggy|fixed]` (also -addr, -db, -mode; port 0 picks a free port),
which prints "listening on http://HOST:PORT" once it listens.
"""

import argparse
import atexit
import os
import random
import signal
import sys
import threading

from flask import Flask, Response

CONFIG = {
    "db": os.environ.get("DBAPP_DB", "sqlite"),
    "mode": os.environ.get("DBAPP_MODE", "buggy"),
}
CUSTOMERS, ORDERS, LATEST = 2000, 20000, 100
COUNTS = {"requests": 0, "queries": 0}
LOCAL = threading.local()

app = Flask(__name__)


def rows():
    """The data, the same every time: customers, then orders."""
    rnd = random.Random(42)
    tiers = ("bronze", "silver", "gold")
    customers = [(i, "customer-%04d" % i, tiers[rnd.randrange(3)]) for i in range(1, CUSTOMERS + 1)]
    orders = [(i, rnd.randrange(1, CUSTOMERS + 1), rnd.randrange(100, 100000)) for i in range(1, ORDERS + 1)]
    return customers, orders


SCHEMA = (
    "CREATE TABLE IF NOT EXISTS customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, tier TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, cents INTEGER NOT NULL)",
)


def open_sqlite():
    import sqlite3

    conn = sqlite3.connect(":memory:", check_same_thread=False)
    for stmt in SCHEMA:
        conn.execute(stmt)
    customers, orders = rows()
    conn.executemany("INSERT INTO customers VALUES (?, ?, ?)", customers)
    conn.executemany("INSERT INTO orders VALUES (?, ?, ?)", orders)
    conn.commit()
    return conn, "?"


def open_postgres(dsn):
    import psycopg

    conn = psycopg.connect(dsn, autocommit=True)
    with conn.transaction():
        # Workers start together: one of them creates and fills the tables.
        conn.execute("SELECT pg_advisory_xact_lock(7301)")
        for stmt in SCHEMA:
            conn.execute(stmt)
        if conn.execute("SELECT count(*) FROM customers").fetchone()[0] == 0:
            customers, orders = rows()
            with conn.cursor() as cur:
                cur.executemany("INSERT INTO customers VALUES (%s, %s, %s)", customers)
                cur.executemany("INSERT INTO orders VALUES (%s, %s, %s)", orders)
    return conn, "%s"


def config_error():
    """What is wrong with CONFIG, or None."""
    if CONFIG["mode"] not in ("buggy", "fixed"):
        return "mode %r: want buggy or fixed" % CONFIG["mode"]
    if CONFIG["db"] != "sqlite" and not CONFIG["db"].startswith(("postgresql://", "postgres://")):
        return "database %r: want sqlite or postgresql://USER@HOST:PORT/DB" % CONFIG["db"]
    return None


if config_error():  # under gunicorn: the environment's DBAPP_MODE and DBAPP_DB
    raise SystemExit("dbapp: " + config_error())


def database():
    """This thread's connection and the driver's placeholder, opened on
    first use (so each of gunicorn's forked workers opens its own)."""
    if not hasattr(LOCAL, "conn"):
        db = CONFIG["db"]
        LOCAL.conn, LOCAL.ph = open_sqlite() if db == "sqlite" else open_postgres(db)
    return LOCAL.conn, LOCAL.ph


def recent_orders():
    """The latest orders with their customers: 1 + 100 queries (buggy) or 1."""
    conn, ph = database()
    cur = conn.cursor()
    out = []
    if CONFIG["mode"] == "buggy":
        cur.execute("SELECT id, customer_id, cents FROM orders ORDER BY id DESC LIMIT %d" % LATEST)
        queries = 1
        for order_id, customer_id, cents in cur.fetchall():
            cur.execute("SELECT name, tier FROM customers WHERE id = " + ph, (customer_id,))
            queries += 1
            name, tier = cur.fetchone()
            out.append("%d %s %s %d.%02d" % (order_id, name, tier, cents // 100, cents % 100))
    else:
        cur.execute(
            "SELECT o.id, c.name, c.tier, o.cents FROM orders o JOIN customers c ON c.id = o.customer_id"
            " ORDER BY o.id DESC LIMIT %d" % LATEST
        )
        queries = 1
        for order_id, name, tier, cents in cur.fetchall():
            out.append("%d %s %s %d.%02d" % (order_id, name, tier, cents // 100, cents % 100))
    cur.close()
    COUNTS["requests"] += 1
    COUNTS["queries"] += queries
    return "\n".join(out) + "\n"


@app.route("/orders")
def orders():
    return Response(recent_orders(), mimetype="text/plain")


@app.route("/stats")
def stats():
    return Response("%d requests, %d queries\n" % (COUNTS["requests"], COUNTS["queries"]), mimetype="text/plain")


@app.route("/healthz")
def healthz():
    return "ok\n"


@atexit.register
def report_queries():
    n, q = COUNTS["requests"], COUNTS["queries"]
    if n:
        print("queries: %d requests, %d queries, %.1f per request" % (n, q, q / n), flush=True)


def main(argv):
    p = argparse.ArgumentParser(prog="dbapp")
    p.add_argument("--addr", "-addr", default="127.0.0.1:8080")
    p.add_argument("--db", "-db", default=CONFIG["db"])
    p.add_argument("--mode", "-mode", default=CONFIG["mode"], choices=["buggy", "fixed"])
    a = p.parse_args(argv)
    CONFIG["db"], CONFIG["mode"] = a.db, a.mode
    if config_error():
        p.error(config_error())
    database()  # fail at start, not on the first request
    from werkzeug.serving import WSGIRequestHandler, make_server

    class Quiet(WSGIRequestHandler):
        def log_request(self, *args):
            pass

    host, _, port = a.addr.rpartition(":")
    srv = make_server(host, int(port), app, threaded=False, request_handler=Quiet)
    print("listening on http://%s:%d" % srv.server_address[:2], flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
