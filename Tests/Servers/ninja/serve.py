#!/usr/bin/env python3
"""django-ninja test server for Depot's integration tests.

Run as `<venv python> Tests/Servers/ninja/serve.py` (any cwd). It binds
127.0.0.1 on a free port, prints exactly one line `PORT <n>` to stdout and
serves with Django's threaded dev server. It exits on SIGTERM/SIGINT and as
soon as its stdin reaches EOF (see Tests/Servers/README.md). State is in
memory (no database).

django-ninja at its defaults: `@paginate` with `LimitOffsetPagination`
answers `{"items": [...], "count": N}` (`?limit=&offset=`, 25 by default here,
`NINJA_PAGINATION_PER_PAGE`), validation errors are 422 `{"detail": [...]}`.
"""
import os
import signal
import sys
import threading

sys.dont_write_bytecode = True


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


signal.signal(signal.SIGTERM, _exit_now)
signal.signal(signal.SIGINT, _exit_now)
if hasattr(signal, "SIGHUP"):
    signal.signal(signal.SIGHUP, _exit_now)
threading.Thread(target=_watch_stdin, name="stdin-watch", daemon=True).start()

import django
from django.conf import settings

settings.configure(
    DEBUG=False,
    SECRET_KEY="depot-integration-tests-not-secret",
    ALLOWED_HOSTS=["127.0.0.1", "localhost"],
    ROOT_URLCONF=__name__,
    INSTALLED_APPS=[],
    MIDDLEWARE=[],
    DATABASES={},
    USE_TZ=True,
    NINJA_PAGINATION_PER_PAGE=25,
    LOGGING={
        "version": 1,
        "disable_existing_loggers": False,
        "handlers": {"stderr": {"class": "logging.StreamHandler", "stream": "ext://sys.stderr"}},
        "loggers": {
            "django.server": {"handlers": ["stderr"], "level": "ERROR", "propagate": False},
            "django.request": {"handlers": ["stderr"], "level": "ERROR", "propagate": False},
        },
    },
)
django.setup()

from datetime import datetime
from typing import List, Optional

from django.http import HttpResponse, JsonResponse
from django.urls import path
from django.utils import timezone
from ninja import Field, NinjaAPI, Schema
from ninja.errors import HttpError
from ninja.pagination import LimitOffsetPagination, paginate

# ---- model and store ---------------------------------------------------------


class NoteIn(Schema):
    title: str = Field(min_length=1, max_length=100)
    body: str = ""
    done: bool = False


class NoteOut(Schema):
    id: int
    title: str
    body: str
    done: bool
    updated_at: datetime


class NotePatch(Schema):
    title: Optional[str] = Field(default=None, min_length=1, max_length=100)
    body: Optional[str] = None
    done: Optional[bool] = None


class Store:
    def __init__(self):
        self.lock = threading.RLock()
        self.reset()

    def reset(self):
        with self.lock:
            self.notes = {}
            self.next_id = 1

    def add(self, data):
        with self.lock:
            note = {"id": self.next_id, "title": data["title"], "body": data.get("body", ""),
                    "done": data.get("done", False), "updated_at": timezone.now()}
            self.notes[note["id"]] = note
            self.next_id += 1
            return note


store = Store()
api = NinjaAPI(title="Depot test server (django-ninja)")


def _get(note_id):
    note = store.notes.get(note_id)
    if note is None:
        raise HttpError(404, "Not Found")
    return note


@api.get("/notes", response=List[NoteOut])
@paginate(LimitOffsetPagination)
def list_notes(request):
    with store.lock:
        return list(store.notes.values())


@api.post("/notes", response={201: NoteOut})
def create_note(request, payload: NoteIn):
    return 201, store.add(payload.dict())


@api.get("/notes/{note_id}", response=NoteOut)
def read_note(request, note_id: int):
    return _get(note_id)


@api.put("/notes/{note_id}", response=NoteOut)
def replace_note(request, note_id: int, payload: NoteIn):
    with store.lock:
        note = _get(note_id)
        note.update(payload.dict(), updated_at=timezone.now())
        return note


@api.patch("/notes/{note_id}", response=NoteOut)
def update_note(request, note_id: int, payload: NotePatch):
    with store.lock:
        note = _get(note_id)
        note.update(payload.dict(exclude_unset=True), updated_at=timezone.now())
        return note


@api.delete("/notes/{note_id}", response={204: None})
def delete_note(request, note_id: int):
    with store.lock:
        _get(note_id)
        del store.notes[note_id]
    return 204, None


# ---- request log and test-control endpoints ----------------------------------

_log_lock = threading.Lock()
_log = []


def control_reset(request):
    store.reset()
    with _log_lock:
        _log.clear()
    return HttpResponse(status=204)


def control_seed(request):
    import json

    count = int(json.loads(request.body or b"{}").get("count", 0))
    for i in range(1, count + 1):
        store.add({"title": "Note %d" % i})
    return JsonResponse({"created": count}, status=201)


def control_requests(request):
    with _log_lock:
        return JsonResponse(list(_log), safe=False)


def _csrf_exempt(view):
    view.csrf_exempt = True
    return view


urlpatterns = [
    path("__reset", _csrf_exempt(control_reset)),
    path("__seed", _csrf_exempt(control_seed)),
    path("__requests", control_requests),
    path("", api.urls),
]

# ---- serve -------------------------------------------------------------------

try:
    from django.core.handlers.wsgi import WSGIHandler
    from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler

    class App(WSGIHandler):
        def get_response(self, request):
            response = super().get_response(request)
            if not request.path.startswith("/__"):
                with _log_lock:
                    _log.append({
                        "method": request.method,
                        "path": request.path,
                        "query": request.META.get("QUERY_STRING", ""),
                        "status": response.status_code,
                        "content_type": request.headers.get("Content-Type"),
                        "idempotency_key": request.headers.get("Idempotency-Key"),
                    })
            return response

    httpd = ThreadedWSGIServer(("127.0.0.1", 0), WSGIRequestHandler)
    httpd.set_app(App())
    sys.stdout.write("PORT %d\n" % httpd.server_address[1])
    sys.stdout.flush()
    httpd.serve_forever()
except BaseException:
    import traceback

    traceback.print_exc()
    _exit_now()
_exit_now()
