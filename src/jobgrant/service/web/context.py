"""What every page needs: the same page in the other official language, and the page's date."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django.urls import translate_url

from jobgrant.service.language import ENGLISH, FRENCH, current_language, in_language
from jobgrant.service.web.pages import PAGE_PATH


def page(request: HttpRequest) -> dict[str, object]:
    language = current_language()
    other = in_language(en=FRENCH, fr=ENGLISH)
    query = f"?{request.META['QUERY_STRING']}" if request.META.get("QUERY_STRING") else ""
    # A page rendered by a POST-only address says which GET page it is (pages.shown_as).
    path = str(getattr(request, PAGE_PATH, "") or request.path)
    url = translate_url(path, other)
    prefix = f"/{language}/"
    if url == path and url.startswith(prefix):  # a path no route knows (a 404 page)
        url = f"/{other}/{url[len(prefix) :]}"
    return {
        "language": language,
        "other_language": other,
        "other_language_name": dict(settings.LANGUAGES)[other],  # in its own language
        "other_language_url": url + query,
        # The wizard's language button, written (as toggles are) in the language it switches to.
        "switch_keeping_input": in_language(
            en="Passer au français en gardant ce que vous avez saisi",
            fr="Switch to English, keeping what you typed",
        ),
    }
