import threading

_lock = threading.Lock()
_log = []


def clear():
    with _lock:
        _log.clear()


def entries():
    with _lock:
        return list(_log)


class RequestLogMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if not request.path.startswith("/__"):
            with _lock:
                _log.append({
                    "method": request.method,
                    "path": request.path,
                    "query": request.META.get("QUERY_STRING", ""),
                    "status": response.status_code,
                    "content_type": request.headers.get("Content-Type"),
                    "idempotency_key": request.headers.get("Idempotency-Key"),
                    "location": response.get("Location"),
                    "body": request.body.decode("utf-8", "replace") if request.method != "GET" else None,
                })
        return response
