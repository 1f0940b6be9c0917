"""The static files WhiteNoise found from the finders are walked once per process, not once per
test client (static_serving.py), and still served with their headers."""

from __future__ import annotations

from django.test import Client

from jobgrant.service.static_serving import StaticFilesMiddleware


def test_each_client_serves_the_files_the_first_walk_found() -> None:
    StaticFilesMiddleware._found.clear()
    first = Client().get("/static/web/app.css")
    assert first.status_code == 200
    assert len(StaticFilesMiddleware._found) == 1
    (found,) = StaticFilesMiddleware._found.values()
    assert "/static/web/app.css" in found
    second = Client().get("/static/web/app.css")
    assert second.status_code == 200
    assert len(StaticFilesMiddleware._found) == 1, "the second client walked the files again"
    assert second.getvalue() == first.getvalue()
    assert second["Cache-Control"] == first["Cache-Control"]
