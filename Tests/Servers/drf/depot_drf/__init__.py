"""Django app behind Tests/Servers/drf/serve.py (Django REST Framework defaults)."""
