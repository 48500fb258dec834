#!/usr/bin/env python3
"""flask-smorest test server for Depot's integration tests.

Run as `<venv python> Tests/Servers/smorest/serve.py` (any cwd). It binds
127.0.0.1 on a free port, prints exactly one line `PORT <n>` to stdout and
serves with werkzeug's threaded server. It exits on SIGTERM/SIGINT and as soon
as its stdin reaches EOF (see Tests/Servers/README.md). State is in memory.

flask-smorest at its defaults: marshmallow schemas that reject unknown fields
(`unknown=RAISE`, so a `dump_only` field such as `id` or `updated_at` sent back
is a 422 `{"errors": {"json": {"id": ["Unknown field."]}}}`), and its ETag
feature: every item answer has an `ETag`, and PUT, PATCH and DELETE without
`If-Match` are answered 428, with a stale one 412. `updated_at` is printed
without a zone (a naive UTC datetime, `2026-11-25T16:50:01.285651`).
"""
import datetime
import os
import signal
import sys
import threading

sys.dont_write_bytecode = True

import marshmallow as ma
from flask import Flask, request
from flask.views import MethodView
from flask_smorest import Api, Blueprint, abort
from werkzeug.serving import make_server

# ---- model and store ---------------------------------------------------------


class NoteSchema(ma.Schema):
    id = ma.fields.Int(dump_only=True)
    title = ma.fields.Str(required=True, validate=ma.validate.Length(min=1, max=100))
    body = ma.fields.Str(load_default="")
    done = ma.fields.Bool(load_default=False)
    updated_at = ma.fields.DateTime(dump_only=True)


class NotePatchSchema(ma.Schema):
    title = ma.fields.Str(validate=ma.validate.Length(min=1, max=100))
    body = ma.fields.Str()
    done = ma.fields.Bool()


class NoteQuerySchema(ma.Schema):
    updated_after = ma.fields.NaiveDateTime()


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
                    "done": data.get("done", False), "updated_at": _now()}
            self.notes[note["id"]] = note
            self.next_id += 1
            return note


def _now():
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


store = Store()

# ---- app ---------------------------------------------------------------------

app = Flask("depot_smorest")
app.config.update(
    API_TITLE="Depot test server (flask-smorest)",
    API_VERSION="1",
    OPENAPI_VERSION="3.0.2",
    ETAG_DISABLED=False,
)
api = Api(app)
blp = Blueprint("notes", "notes", url_prefix="/notes")

_log_lock = threading.Lock()
_log = []


@app.after_request
def _record(response):
    if not request.path.startswith("/__"):
        with _log_lock:
            _log.append({
                "method": request.method,
                "path": request.path,
                "query": request.query_string.decode("latin-1"),
                "status": response.status_code,
                "content_type": request.headers.get("Content-Type"),
                "idempotency_key": request.headers.get("Idempotency-Key"),
                "if_match": request.headers.get("If-Match"),
                "body": request.get_data(as_text=True) or None,
            })
    return response


def _get(note_id):
    note = store.notes.get(note_id)
    if note is None:
        abort(404)
    return note


@blp.route("/")
class Notes(MethodView):
    @blp.etag
    @blp.arguments(NoteQuerySchema, location="query")
    @blp.response(200, NoteSchema(many=True))
    @blp.paginate()
    def get(self, args, pagination_parameters):
        with store.lock:
            notes = list(store.notes.values())
        if "updated_after" in args:
            notes = [n for n in notes if n["updated_at"] >= args["updated_after"]]
        notes.sort(key=lambda n: (n["updated_at"], n["id"]) if "updated_after" in args else n["id"])
        pagination_parameters.item_count = len(notes)
        start = pagination_parameters.first_item
        return notes[start:start + pagination_parameters.page_size]

    @blp.etag
    @blp.arguments(NoteSchema)
    @blp.response(201, NoteSchema)
    def post(self, data):
        return store.add(data)


@blp.route("/<int:note_id>")
class NoteById(MethodView):
    @blp.etag
    @blp.response(200, NoteSchema)
    def get(self, note_id):
        return _get(note_id)

    @blp.etag
    @blp.arguments(NoteSchema)
    @blp.response(200, NoteSchema)
    def put(self, data, note_id):
        with store.lock:
            note = _get(note_id)
            blp.check_etag(note, NoteSchema)
            note.update(title=data["title"], body=data["body"], done=data["done"], updated_at=_now())
            return note

    @blp.etag
    @blp.arguments(NotePatchSchema)
    @blp.response(200, NoteSchema)
    def patch(self, data, note_id):
        with store.lock:
            note = _get(note_id)
            blp.check_etag(note, NoteSchema)
            note.update(data)
            note["updated_at"] = _now()
            return note

    @blp.etag
    @blp.response(204)
    def delete(self, note_id):
        with store.lock:
            note = _get(note_id)
            blp.check_etag(note, NoteSchema)
            del store.notes[note_id]


api.register_blueprint(blp)

# ---- test-control endpoints --------------------------------------------------


@app.post("/__reset")
def control_reset():
    store.reset()
    with _log_lock:
        _log.clear()
    return "", 204


@app.post("/__seed")
def control_seed():
    count = int((request.get_json(silent=True) or {}).get("count", 0))
    for i in range(1, count + 1):
        store.add({"title": "Note %d" % i})
    return {"created": count}, 201


@app.post("/__edit/<int:note_id>")
def control_edit(note_id):
    """Another client's edit: the fields given, no precondition."""
    with store.lock:
        note = _get(note_id)
        note.update(request.get_json(silent=True) or {})
        note["updated_at"] = _now()
    return "", 204


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


def main():
    signal.signal(signal.SIGTERM, _exit_now)
    signal.signal(signal.SIGINT, _exit_now)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, _exit_now)
    threading.Thread(target=_watch_stdin, name="stdin-watch", daemon=True).start()
    import logging

    from werkzeug.serving import WSGIRequestHandler

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    WSGIRequestHandler.protocol_version = "HTTP/1.1"  # keep-alive
    server = make_server("127.0.0.1", 0, app, threaded=True)
    sys.stdout.write("PORT %d\n" % server.server_port)
    sys.stdout.flush()
    server.serve_forever()
    _exit_now()


if __name__ == "__main__":
    main()
