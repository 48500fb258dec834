import json

from django.core.management.color import no_style
from django.db import connection, transaction
from django.http import HttpResponse, JsonResponse
from django.utils.decorators import method_decorator
from django.views.decorators.cache import cache_control
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST
from rest_framework import pagination, serializers, status, viewsets
from rest_framework.response import Response

from . import requestlog
from .models import Note


class NoteSerializer(serializers.ModelSerializer):
    class Meta:
        model = Note
        fields = ["id", "title", "body", "done", "updated_at", "deleted"]
        read_only_fields = ["id", "updated_at", "deleted"]


class NotePagination(pagination.PageNumberPagination):
    page_size = 25
    page_size_query_param = "page_size"
    max_page_size = 25


class NoteLimitOffsetPagination(pagination.LimitOffsetPagination):
    default_limit = 25
    max_limit = 25


class NoteCursorPagination(pagination.CursorPagination):
    page_size = 25
    ordering = "id"


class NoteViewSet(viewsets.ModelViewSet):
    """`notes/`: page-number pagination; also takes a JSON array on POST
    (bulk create, answered 201 with the created array)."""

    queryset = Note.objects.all().order_by("id")
    serializer_class = NoteSerializer
    pagination_class = NotePagination

    def get_queryset(self):
        """Live notes; with `?updated_after=<ISO 8601>` (list only), the notes changed at or
        after it, deleted ones included (flagged), for incremental sync."""
        queryset = Note.objects.all().order_by("id")
        after = self.request.query_params.get("updated_after") if self.action == "list" else None
        if after is None:
            return queryset.filter(deleted=False)
        from django.utils.dateparse import parse_datetime
        from rest_framework.exceptions import ValidationError

        moment = parse_datetime(after)
        if moment is None:
            raise ValidationError({"updated_after": ["Not an ISO 8601 date-time."]})
        return queryset.filter(updated_at__gte=moment)

    def perform_destroy(self, instance):
        instance.deleted = True
        instance.save()

    def create(self, request, *args, **kwargs):
        if isinstance(request.data, list):
            serializer = self.get_serializer(data=request.data, many=True)
            serializer.is_valid(raise_exception=True)
            with transaction.atomic():
                self.perform_create(serializer)
            return Response(serializer.data, status=status.HTTP_201_CREATED)
        return super().create(request, *args, **kwargs)


class LimitNoteViewSet(viewsets.ModelViewSet):
    queryset = Note.objects.filter(deleted=False).order_by("id")
    serializer_class = NoteSerializer
    pagination_class = NoteLimitOffsetPagination


class CursorNoteViewSet(viewsets.ModelViewSet):
    queryset = Note.objects.filter(deleted=False).order_by("id")
    serializer_class = NoteSerializer
    pagination_class = NoteCursorPagination


@method_decorator(cache_control(max_age=60), name="dispatch")
class CachedNoteViewSet(NoteViewSet):
    """`cached-notes/`: `notes/` with `Cache-Control: max-age=60` on every answer (and, as on
    every GET, an ETag from ConditionalGetMiddleware), for cache-first reads."""


# ---- test-control endpoints (plain Django views, no auth, no CSRF) ----------


@csrf_exempt
@require_POST
def reset(request):
    """Delete every note, restart ids at 1, clear the request log."""
    table = Note._meta.db_table
    # DELETE FROM the table and, on SQLite, reset its sqlite_sequence row.
    sql = connection.ops.sql_flush(no_style(), [table], reset_sequences=True)
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
