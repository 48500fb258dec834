"""The resource, as tastypie's tutorial writes it (`myapp/api.py`).

`ModelResource` at its defaults: `always_return_data = False` (a POST answers
201 with an empty body and a `Location`, a PUT 204, a PATCH 202), the list in
`{"meta": {limit, next, offset, previous, total_count}, "objects": [...]}`,
20 a page by `limit`/`offset`. Writes allowed by `Authorization()` as the
tutorial does; validation by a `ModelForm` (`FormValidation`), whose errors
come under the resource's name: `{"note": {"title": ["This field is required."]}}`.
"""
from django import forms
from tastypie.authorization import Authorization
from tastypie.resources import ModelResource
from tastypie.validation import FormValidation

from depot_tastypie.models import Note


class NoteForm(forms.ModelForm):
    class Meta:
        model = Note
        fields = ["title", "body", "done"]


class NoteResource(ModelResource):
    class Meta:
        queryset = Note.objects.all()
        resource_name = "note"
        authorization = Authorization()
        validation = FormValidation(form_class=NoteForm)
        excludes = []
