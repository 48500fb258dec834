from django.urls import include, path
from rest_framework.routers import DefaultRouter

from . import views

router = DefaultRouter(trailing_slash=False)  # JSON:API's URLs: /notes, /notes/1
router.register("notes", views.NoteViewSet, basename="note")

urlpatterns = [
    path("__reset", views.reset),
    path("__seed", views.seed),
    path("__requests", views.requests_log),
    path("", include(router.urls)),
]
