"""A Flask test service whose handler's cost is a framework library's parser.

Planted cost, in werkzeug (a Flask dependency, pinned in .ci/setup):
  POST /import  import_rows: an order import posted as multipart/form-data,
                one small field per order line ("sku:qty"); the handler
                reads request.form and totals the quantities. Werkzeug's
                multipart parser does the work (MultiPartParser.parse and
                its MultipartDecoder.next_event), reached through
                request.form: a cached_property's __get__ and frames that
                only pass the call on. The handler owns the cost; the
                parser's decoder holds most of it.
  GET /healthz  ok.
At exit each process prints "imports: N requests, M lines, mean X ms in
the handler".
Run it with gunicorn -w 2 app:app or python3 app.py --addr HOST:PORT.
"""
import atexit
import os
import sys
import time

from flask import Flask, Response, request

app = Flask(__name__)
STATS = {"n": 0, "lines": 0, "wall": 0.0}


def import_rows():
    """Totals the quantities of the posted order lines."""
    total = count = 0
    form = request.form
    for key in form:
        sku, _, qty = form[key].partition(":")
        total += int(qty)
        count += 1
    return count, total


@app.route("/import", methods=["POST"])
def import_orders():
    start = time.monotonic()
    try:
        count, total = import_rows()
    except ValueError:
        return Response("want fields of sku:qty\n", status=400, mimetype="text/plain")
    STATS["n"] += 1
    STATS["lines"] += count
    STATS["wall"] += time.monotonic() - start
    return Response("%d lines, %d items\n" % (count, total), mimetype="text/plain")


@app.route("/healthz")
def healthz():
    return "ok\n"


@atexit.register
def report():
    n = STATS["n"]
    if n:
        print("imports: %d requests, %d lines, mean %.3f ms in the handler (pid %d)"
              % (n, STATS["lines"], 1000 * STATS["wall"] / n, os.getpid()), flush=True)


if __name__ == "__main__":
    addr = sys.argv[sys.argv.index("--addr") + 1] if "--addr" in sys.argv else "127.0.0.1:8080"
    host, port = addr.rsplit(":", 1)
    app.run(host=host, port=int(port), threaded=False)
