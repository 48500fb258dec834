from django.urls import include, path
from rest_framework.routers import DefaultRouter

from . import views

router = DefaultRouter()  # trailing slashes (the default)
router.register("notes", views.NoteViewSet, basename="note")
router.register("limit-notes", views.LimitNoteViewSet, basename="limit-note")
router.register("cursor-notes", views.CursorNoteViewSet, basename="cursor-note")
router.register("cached-notes", views.CachedNoteViewSet, basename="cached-note")

urlpatterns = [
    path("__reset/", views.reset),
    path("__seed/", views.seed),
    path("__requests/", views.requests_log),
    path("", include(router.urls)),
]
