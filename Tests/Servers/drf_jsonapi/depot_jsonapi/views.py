import json

from django.core.management.color import no_style
from django.db import connection
from django.http import HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST
from rest_framework_json_api import pagination, serializers, views

from . import requestlog
from .models import Note


class NoteSerializer(serializers.ModelSerializer):
    class Meta:
        model = Note
        fields = ["title", "body", "done", "updated_at"]
        read_only_fields = ["updated_at"]


class NotePagination(pagination.JsonApiPageNumberPagination):
    """`page[number]` / `page[size]`, 25 a page (at most 100); `links.next` absolute."""

    page_size = 25
    max_page_size = 100


class NoteViewSet(views.ModelViewSet):
    """`notes`: DJA's ModelViewSet (GET, POST, PATCH, DELETE; no PUT), type `notes`."""

    queryset = Note.objects.all().order_by("id")
    serializer_class = NoteSerializer
    pagination_class = NotePagination
    resource_name = "notes"


# ---- test-control endpoints (plain Django views, no auth, no CSRF) ----------


@csrf_exempt
@require_POST
def reset(request):
    """Delete every note, restart ids at 1, clear the request log."""
    sql = connection.ops.sql_flush(no_style(), [Note._meta.db_table], reset_sequences=True)
    connection.ops.execute_sql_flush(sql)
    requestlog.clear()
    return HttpResponse(status=204)


@csrf_exempt
@require_POST
def seed(request):
    """{"count": N} -> notes "Note 1".."Note N" in one bulk_create."""
    try:
        count = json.loads(request.body or b"{}").get("count")
    except (ValueError, AttributeError):
        count = None
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        return JsonResponse({"detail": 'expected {"count": <non-negative int>}'}, status=400)
    Note.objects.bulk_create([Note(title=f"Note {i}") for i in range(1, count + 1)])
    return JsonResponse({"created": count}, status=201)


@require_GET
def requests_log(request):
    return JsonResponse(requestlog.snapshot(), safe=False)
