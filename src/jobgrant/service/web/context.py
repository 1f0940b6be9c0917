"""What every page needs: the same page in the other official language, and the page's date."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import translate_url
from django.utils import translation

OTHER = {"en": "fr", "fr": "en"}


def page(request: HttpRequest) -> dict[str, object]:
    language = translation.get_language() or "en"
    other = OTHER.get(language[:2], "fr")
    query = f"?{request.META['QUERY_STRING']}" if request.META.get("QUERY_STRING") else ""
    url = translate_url(request.path, other)
    prefix = f"/{language[:2]}/"
    if url == request.path and url.startswith(prefix):  # a path no route knows (a 404 page)
        url = f"/{other}/{url[len(prefix) :]}"
    return {
        "language": language[:2],
        "other_language": other,
        "other_language_url": url + query,
    }
