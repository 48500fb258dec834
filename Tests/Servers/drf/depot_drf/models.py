from django.db import models


class Note(models.Model):
    title = models.CharField(max_length=100)
    body = models.TextField(blank=True, default="")
    done = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)
    # Soft deletes for incremental sync: `notes/` keeps a deleted note, flagged, for
    # `?updated_after=` to report; every list leaves it out otherwise.
    deleted = models.BooleanField(default=False)

    class Meta:
        app_label = "depot_drf"
        ordering = ["id"]

    def __str__(self):
        return self.title
