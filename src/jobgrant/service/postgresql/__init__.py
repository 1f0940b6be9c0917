"""Django's PostgreSQL backend with its parameters bound on the server (settings.py)."""
