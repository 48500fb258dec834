"""Records every request the app answers (except the /__ control paths)."""
import threading

_lock = threading.Lock()
_entries = []


def snapshot():
    with _lock:
        return list(_entries)


def clear():
    with _lock:
        _entries.clear()


class RequestLogMiddleware:
    """Outermost middleware, so it sees the final status (CommonMiddleware's
    slash redirects and 404s included)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if not request.path.startswith("/__"):
            entry = {
                "method": request.method,
                "path": request.path,
                "query": request.META.get("QUERY_STRING", ""),
                "status": response.status_code,
                # The Content-Type header as sent (None when absent).
                "content_type": request.META.get(
                    "depot.raw_content_type", request.META.get("CONTENT_TYPE") or None
                ),
                "idempotency_key": request.headers.get("Idempotency-Key"),
                # The validators of a conditional GET (None when absent).
                "if_none_match": request.headers.get("If-None-Match"),
                "if_modified_since": request.headers.get("If-Modified-Since"),
                "accept": request.headers.get("Accept"),
            }
            with _lock:
                _entries.append(entry)
        return response
