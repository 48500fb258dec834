import json

from django.http import HttpResponse, JsonResponse
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt
from tastypie.api import Api

from depot_tastypie import requestlog
from depot_tastypie.api import NoteResource
from depot_tastypie.models import Note

v1_api = Api(api_name="v1")
v1_api.register(NoteResource())


@csrf_exempt
def reset(request):
    from django.db import connection

    Note.objects.all().delete()
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM sqlite_sequence WHERE name = %s", [Note._meta.db_table])
    requestlog.clear()
    return HttpResponse(status=204)


@csrf_exempt
def seed(request):
    count = int(json.loads(request.body or b"{}").get("count", 0))
    Note.objects.bulk_create([Note(title="Note %d" % i) for i in range(1, count + 1)])
    return JsonResponse({"created": count}, status=201)


def requests(request):
    return JsonResponse(requestlog.entries(), safe=False)


urlpatterns = [
    path("__reset/", reset),
    path("__seed/", seed),
    path("__requests/", requests),
    path("api/", include(v1_api.urls)),
]
