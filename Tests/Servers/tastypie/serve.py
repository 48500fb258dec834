#!/usr/bin/env python3
"""django-tastypie test server for Depot's integration tests.

Run as `<venv python> Tests/Servers/tastypie/serve.py` (any cwd). It binds
127.0.0.1 on a free port, prints exactly one line `PORT <n>` to stdout and
then serves with Django's own threaded dev server (HTTP/1.1 keep-alive, as
`runserver`). It exits on SIGTERM/SIGINT and as soon as its stdin reaches EOF,
so the parent must hand it a pipe as stdin (stdin=/dev/null exits at once).
The SQLite database lives in a fresh temp dir, removed at exit.
"""
import os
import shutil
import signal
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree

_tmpdir = tempfile.mkdtemp(prefix="depot-tastypie-")
_exit_lock = threading.Lock()


def _exit(code=0):
    with _exit_lock:  # only one thread tears down
        shutil.rmtree(_tmpdir, ignore_errors=True)
        try:
            sys.stderr.flush()
        finally:
            os._exit(code)


def _watch_stdin():
    try:
        while sys.stdin.buffer.read1(65536):
            pass
    except (OSError, ValueError):
        pass
    _exit(0)


def _on_signal(signum, frame):
    _exit(0)


signal.signal(signal.SIGTERM, _on_signal)
signal.signal(signal.SIGINT, _on_signal)
if hasattr(signal, "SIGHUP"):
    signal.signal(signal.SIGHUP, _on_signal)
threading.Thread(target=_watch_stdin, name="stdin-watch", daemon=True).start()

try:
    import django
    from django.conf import settings

    settings.configure(
        DEBUG=False,
        SECRET_KEY="depot-integration-tests-not-secret",
        ALLOWED_HOSTS=["127.0.0.1", "localhost"],
        ROOT_URLCONF="depot_tastypie.urls",
        # The tutorial's settings: tastypie in INSTALLED_APPS beside the app.
        INSTALLED_APPS=[
            "django.contrib.auth",
            "django.contrib.contenttypes",
            "tastypie",
            "depot_tastypie",
        ],
        # `startproject`'s middleware (minus sessions and messages, which the
        # API does not use), with the request log outermost.
        MIDDLEWARE=[
            "depot_tastypie.requestlog.RequestLogMiddleware",
            "django.middleware.security.SecurityMiddleware",
            "django.middleware.common.CommonMiddleware",
            "django.middleware.csrf.CsrfViewMiddleware",
            "django.middleware.clickjacking.XFrameOptionsMiddleware",
        ],
        DATABASES={
            "default": {
                "ENGINE": "django.db.backends.sqlite3",
                "NAME": os.path.join(_tmpdir, "db.sqlite3"),
                "OPTIONS": {"timeout": 20},
            }
        },
        DEFAULT_AUTO_FIELD="django.db.models.AutoField",
        USE_TZ=True,
        TIME_ZONE="UTC",
        LOGGING={
            "version": 1,
            "disable_existing_loggers": False,
            "handlers": {
                "stderr": {"class": "logging.StreamHandler", "stream": "ext://sys.stderr"},
            },
            "loggers": {
                "django.server": {"handlers": ["stderr"], "level": "ERROR", "propagate": False},
                "django.request": {"handlers": ["stderr"], "level": "ERROR", "propagate": False},
            },
        },
    )
    django.setup()

    from django.core.management import call_command
    from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
    from django.core.wsgi import get_wsgi_application

    call_command("migrate", run_syncdb=True, verbosity=0, interactive=False)

    httpd = ThreadedWSGIServer(("127.0.0.1", 0), WSGIRequestHandler)
    httpd.set_app(get_wsgi_application())
    sys.stdout.write("PORT %d\n" % httpd.server_address[1])
    sys.stdout.flush()
    # Nothing else is ever written to stdout.
    httpd.serve_forever()
except BaseException:
    import traceback

    traceback.print_exc()
    _exit(1)
_exit(0)
