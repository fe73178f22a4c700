"""An ASGI test service for perflab's pre-fork acceptance tests, served by
uvicorn --workers 2 (uvicorn app:app), with no framework of its own.

Planted cost, in the application's own code:
  GET /score   score_items: ranks 3000 items by a pure-Python score per request.
  GET /healthz ok.
"""


def score_items():
    scores = []
    for i in range(3000):
        s = 0
        for k in range(1, 40):
            s += (i * k) % 7 * k
        scores.append((s, i))
    scores.sort(reverse=True)
    return ",".join(str(i) for _, i in scores[:20]).encode()


async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    if scope["path"] == "/score":
        body = score_items()
    elif scope["path"] == "/healthz":
        body = b"ok\n"
    else:
        await send({"type": "http.response.start", "status": 404, "headers": []})
        await send({"type": "http.response.body", "body": b"not found\n"})
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": body})
