#!/usr/bin/env python3
"""Piccolo (piccolo_api's PiccoloCRUD) test server for Depot's integration tests.

Run as `<venv python> Tests/Servers/piccolo/serve.py` (any cwd). It binds
127.0.0.1 on a free port, serves the app with uvicorn and, once uvicorn is
listening, prints exactly one line `PORT <n>` to stdout. It exits on
SIGTERM/SIGINT and as soon as its stdin reaches EOF, so the parent must hand it
a pipe as stdin (stdin=/dev/null exits at once). The SQLite database lives in a
fresh temp dir, removed at exit.

The app is piccolo_api's tutorial: a Piccolo `Table` exposed by
`PiccoloCRUD(Note, read_only=False)` mounted on a Starlette `Router`, every
PiccoloCRUD default left alone (15 rows a page by `__page`/`__page_size`, lists
as `{"rows": [...]}` newest first, a POST answered `[{"id": N}]`, PUT answered
204, PATCH answered with the row without its id, validation errors as 400 text).
"""
import datetime
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree

_tmpdir = tempfile.mkdtemp(prefix="depot-piccolo-")
_exit_lock = threading.Lock()


def _exit_now(*_):
    with _exit_lock:  # only one thread tears down
        shutil.rmtree(_tmpdir, ignore_errors=True)
        try:
            sys.stderr.flush()
        finally:
            os._exit(0)


def _watch_stdin():
    try:
        while sys.stdin.buffer.read1(65536):
            pass
    except (OSError, ValueError):
        pass
    _exit_now()


import uvicorn  # noqa: E402
from piccolo.columns import Boolean, Text, Timestamptz, Varchar  # noqa: E402
from piccolo.engine.sqlite import SQLiteEngine  # noqa: E402
from piccolo.table import Table  # noqa: E402
from piccolo_api.crud.endpoints import PiccoloCRUD  # noqa: E402
from piccolo_api.crud.hooks import Hook, HookType  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import JSONResponse, Response  # noqa: E402
from starlette.routing import Mount, Route, Router  # noqa: E402

# ---- model (Piccolo's tutorial: a Table on an engine) ------------------------

DB = SQLiteEngine(path=os.path.join(_tmpdir, "notes.sqlite"))


def _now() -> datetime.datetime:
    return datetime.datetime.now(tz=datetime.timezone.utc)


class Note(Table, db=DB):
    title = Varchar(length=100, required=True)
    body = Text()
    done = Boolean(default=False)
    # Stamped on every update by `auto_update` (Piccolo applies it to
    # `Table.update`, the query PiccoloCRUD's PUT and PATCH run). On a create,
    # PiccoloCRUD hands the table every field of its pydantic model, a missing
    # one as None (over the column's default), so the insert is stamped by a
    # `pre_save` hook, piccolo_api's way to set a value on a POST.
    updated_at = Timestamptz(auto_update=_now)


async def stamp(row: Note) -> Note:
    row.updated_at = _now()
    return row


# ---- request log (pure ASGI middleware, sees the final status) ---------------

_log_lock = threading.Lock()
_log = []


class RequestLogMiddleware:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["path"].startswith("/__"):
            return await self.app(scope, receive, send)
        headers = {}
        for k, v in scope["headers"]:
            headers.setdefault(k.decode("latin-1").lower(), v.decode("latin-1"))
        entry = {
            "method": scope["method"],
            "path": scope["path"],
            "query": scope.get("query_string", b"").decode("latin-1"),
            "status": None,
            "content_type": headers.get("content-type"),
            "idempotency_key": headers.get("idempotency-key"),
            "body": None,
        }
        chunks = []

        async def receive_and_record():
            message = await receive()
            if message["type"] == "http.request":
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    entry["body"] = b"".join(chunks).decode("utf-8", "replace") or None
            return message

        async def send_and_record(message):
            if message["type"] == "http.response.start":
                entry["status"] = message["status"]
                with _log_lock:
                    _log.append(entry)
            await send(message)

        await self.app(scope, receive_and_record, send_and_record)


# ---- test-control endpoints --------------------------------------------------


async def control_reset(request: Request) -> Response:
    """Delete every note, restart ids at 1, clear the request log."""
    await Note.alter().drop_table(if_exists=True).run()
    await Note.create_table().run()
    with _log_lock:
        _log.clear()
    return Response(status_code=204)


async def control_seed(request: Request) -> Response:
    """{"count": N} -> notes "Note 1".."Note N"."""
    count = int((await request.json())["count"])
    for i in range(1, count + 1):
        await Note(title=f"Note {i}", body="").save().run()
    return JSONResponse({"created": count}, status_code=201)


async def control_requests(request: Request) -> Response:
    with _log_lock:
        return JSONResponse(list(_log))


# ---- app (piccolo_api's docs: a PiccoloCRUD mounted on a Starlette Router) ---

app = RequestLogMiddleware(
    Router(
        [
            Route("/__reset", control_reset, methods=["POST"]),
            Route("/__seed", control_seed, methods=["POST"]),
            Route("/__requests", control_requests, methods=["GET"]),
            Mount(
                path="/notes",
                app=PiccoloCRUD(
                    table=Note,
                    read_only=False,
                    hooks=[Hook(hook_type=HookType.pre_save, callable=stamp)],
                ),
            ),
        ]
    )
)


# ---- process plumbing --------------------------------------------------------


class _Server(uvicorn.Server):
    async def startup(self, sockets=None):
        await Note.create_table(if_not_exists=True).run()
        await super().startup(sockets=sockets)
        if self.started and not self.should_exit:
            port = sockets[0].getsockname()[1]
            sys.stdout.write("PORT %d\n" % port)
            sys.stdout.flush()
            # Nothing else is ever written to stdout.


def main():
    # uvicorn swaps in its own SIGINT/SIGTERM handlers while it runs (graceful
    # shutdown), then restores these and re-raises the signal: so a signal
    # ends the process with status 0 after a graceful shutdown.
    signal.signal(signal.SIGTERM, _exit_now)
    signal.signal(signal.SIGINT, _exit_now)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, _exit_now)
    threading.Thread(target=_watch_stdin, name="stdin-watch", daemon=True).start()

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    _Server(config).run(sockets=[sock])
    _exit_now()


if __name__ == "__main__":
    try:
        main()
    except BaseException:
        import traceback

        traceback.print_exc()
        with _exit_lock:
            shutil.rmtree(_tmpdir, ignore_errors=True)
            os._exit(1)
