#!/usr/bin/env python3
"""FastAPI test server for Depot's integration tests.

Run as `<venv python> Tests/Servers/fastapi/serve.py` (any cwd). It binds
127.0.0.1 on a free port, serves the app with uvicorn and, once uvicorn is
listening, prints exactly one line `PORT <n>` to stdout. It exits on
SIGTERM/SIGINT and as soon as its stdin reaches EOF, so the parent must hand it
a pipe as stdin (stdin=/dev/null exits at once). State is in memory only.

Routes have no trailing slash (FastAPI's common style); FastAPI's defaults are
left alone (redirect_slashes=True, 422 validation errors, {"detail": ...}).
"""
import os
import signal
import socket
import sys
import threading
from datetime import datetime, timezone
from typing import List, Optional

import uvicorn
from fastapi import FastAPI, HTTPException, Query, Request, Response, status
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, Field, ValidationError

# ---- model and store ---------------------------------------------------------


class NoteIn(BaseModel):
    title: str = Field(min_length=1, max_length=100)
    body: str = ""
    done: bool = False


def _now() -> datetime:
    return datetime.now(timezone.utc)


class Note(BaseModel):
    id: int
    title: str = Field(min_length=1, max_length=100)
    body: str = ""
    done: bool = False
    # Stamped by the server on every write; never read from a request (NoteIn has no such field).
    updated_at: datetime = Field(default_factory=_now)


class NotePatch(BaseModel):
    title: Optional[str] = Field(default=None, min_length=1, max_length=100)
    body: Optional[str] = None
    done: Optional[bool] = None


class Store:
    def __init__(self):
        self.lock = threading.Lock()
        self.notes = {}  # id -> Note, insertion (= id) order
        self.next_id = 1

    def reset(self):
        with self.lock:
            self.notes.clear()
            self.next_id = 1

    def add(self, data: NoteIn) -> Note:
        with self.lock:
            note = Note(id=self.next_id, **data.model_dump())
            self.notes[note.id] = note
            self.next_id += 1
            return note


store = Store()

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
        }

        async def send_and_record(message):
            if message["type"] == "http.response.start":
                entry["status"] = message["status"]
                with _log_lock:
                    _log.append(entry)
            await send(message)

        await self.app(scope, receive, send_and_record)


# ---- app ---------------------------------------------------------------------

app = FastAPI(title="Depot test server (FastAPI)")
app.add_middleware(RequestLogMiddleware)


def _get(note_id: int) -> Note:
    note = store.notes.get(note_id)
    if note is None:
        raise HTTPException(status_code=404, detail="Not Found")
    return note


@app.get("/notes", response_model=List[Note])
def list_notes(
    response: Response,
    offset: int = Query(0, ge=0),
    limit: int = Query(25, ge=1),
):
    limit = min(limit, 25)
    with store.lock:
        notes = list(store.notes.values())
    response.headers["X-Total-Count"] = str(len(notes))
    return notes[offset : offset + limit]


@app.post("/notes", response_model=Note, status_code=status.HTTP_201_CREATED)
def create_note(note: NoteIn):
    return store.add(note)


@app.get("/notes/{note_id}", response_model=Note)
def read_note(note_id: int):
    with store.lock:
        return _get(note_id)


@app.put("/notes/{note_id}", response_model=Note)
def replace_note(note_id: int, note: NoteIn):
    with store.lock:
        _get(note_id)
        updated = Note(id=note_id, **note.model_dump())
        store.notes[note_id] = updated
        return updated


@app.patch("/notes/{note_id}", response_model=Note)
def update_note(note_id: int, patch: NotePatch):
    update = patch.model_dump(exclude_unset=True)
    with store.lock:
        stored = _get(note_id)
        try:
            # Re-validate so that e.g. {"title": null} is a 422, not a bad note.
            updated = Note.model_validate({**stored.model_dump(), **update, "updated_at": _now()})
        except ValidationError as e:
            raise RequestValidationError(
                [{**err, "loc": ("body", *err["loc"])} for err in e.errors(include_url=False)]
            )
        store.notes[note_id] = updated
        return updated


@app.delete("/notes/{note_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_note(note_id: int):
    with store.lock:
        _get(note_id)
        del store.notes[note_id]
    return Response(status_code=status.HTTP_204_NO_CONTENT)


# ---- test-control endpoints --------------------------------------------------


class Seed(BaseModel):
    count: int = Field(ge=0)


@app.post("/__reset", status_code=204)
def control_reset():
    """Delete every note, restart ids at 1, clear the request log."""
    store.reset()
    with _log_lock:
        _log.clear()
    return Response(status_code=204)


@app.post("/__seed", status_code=201)
def control_seed(seed: Seed):
    """{"count": N} -> notes "Note 1".."Note N"."""
    for i in range(1, seed.count + 1):
        store.add(NoteIn(title=f"Note {i}"))
    return {"created": seed.count}


@app.get("/__requests")
def control_requests():
    with _log_lock:
        return list(_log)


# ---- process plumbing --------------------------------------------------------


def _exit_now(*_):
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


class _Server(uvicorn.Server):
    async def startup(self, sockets=None):
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
    main()
