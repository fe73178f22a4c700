"""A Flask test service for perflab's pre-fork acceptance tests.

Planted costs, each in the application's own code:
  GET /report  render_report: builds a text report of 400 rows in pure Python
               (string formatting and a running checksum) per request.
  GET /export  export_orders: the handler's cost is json.dumps of the 300
               orders it returns (json/encoder.py does the work; the handler
               owns it).
  GET /work    crunch: pure-Python arithmetic until the worker's thread has
               used ?ms= (default 5, at most 1000) ms of CPU: a known service
               time. Under gunicorn's sync workers (gunicorn -w 2 app:app)
               with more connections than workers, a request's latency is
               mostly its wait for a free worker. At exit each worker prints
               "work: N requests, mean X ms in the handler, Y ms CPU".
  GET /healthz ok.
Run it with gunicorn -w 2 app:app, python3 -m gunicorn, or python3 app.py.
"""
import atexit
import json
import os
import time

from flask import Flask, Response, request

app = Flask(__name__)

ORDERS = [
    {"id": i, "customer": "customer-%d" % (i % 97), "lines": [{"sku": "sku-%d" % j, "qty": j % 5 + 1, "price": j * 1.25} for j in range(6)],
     "status": ("open", "paid", "shipped")[i % 3], "tags": ["t%d" % (i % 7), "t%d" % (i % 11)]}
    for i in range(300)
]


def render_report():
    acc = 7
    out = []
    for i in range(400):
        row = "%05d|%-12s|%10.2f|%s" % (i, "item-%d" % (i * 7 % 1000), i * 3.14159, "x" * (i % 9))
        for ch in row:
            acc = (acc * 31 + ord(ch)) & 0xFFFFFFFF
        out.append(row)
    out.append("checksum %08x" % acc)
    return "\n".join(out)


@app.route("/report")
def report():
    return Response(render_report(), mimetype="text/plain")


def export_orders():
    return json.dumps({"orders": ORDERS, "count": len(ORDERS)}, sort_keys=True, indent=1)


@app.route("/export")
def export():
    return Response(export_orders(), mimetype="application/json")


WORK = {"n": 0, "wall": 0.0, "cpu": 0.0}


def crunch(ms):
    """Pure-Python arithmetic until this thread has used ms of CPU."""
    end = time.thread_time() + ms / 1000
    acc = 7
    while time.thread_time() < end:
        for i in range(200):
            acc = (acc * 31 + i) & 0xFFFFFFFF
    return acc


@app.route("/work")
def work():
    try:
        ms = float(request.args.get("ms", "5"))
    except ValueError:
        return Response("ms: want a number of milliseconds\n", status=400, mimetype="text/plain")
    if not 0 <= ms <= 1000:
        return Response("ms: want 0 to 1000\n", status=400, mimetype="text/plain")
    start, cpu = time.monotonic(), time.thread_time()
    crunch(ms)
    WORK["n"] += 1
    WORK["wall"] += time.monotonic() - start
    WORK["cpu"] += time.thread_time() - cpu
    return Response("crunched %g ms\n" % ms, mimetype="text/plain")


@atexit.register
def report_work():
    n = WORK["n"]
    if n:
        print("work: %d requests, mean %.3f ms in the handler, %.3f ms CPU (pid %d)"
              % (n, 1000 * WORK["wall"] / n, 1000 * WORK["cpu"] / n, os.getpid()), flush=True)


@app.route("/healthz")
def healthz():
    return "ok\n"


if __name__ == "__main__":
    import sys
    addr = sys.argv[sys.argv.index("--addr") + 1] if "--addr" in sys.argv else "127.0.0.1:8080"
    host, port = addr.rsplit(":", 1)
    app.run(host=host, port=int(port), threaded=False)
