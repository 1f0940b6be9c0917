"""A page's path in a language, from its English path: the French pages have French words
(/fr/employeur/… for /en/employer/…), so a test that opens a page in either language writes
the English path once and asks for it in the language: `page_path("fr", "/employer/apply/")`
is "/fr/employeur/demander/". Django's own translate_url() does the work (the route is found
in English, then reversed in `language`); a path no page has fails the test."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.urls import Resolver404, resolve, translate_url
from django.utils import translation


def page_path(language: str, english: str) -> str:
    """The path of the page whose English path (after /en) is `english`, in `language`; its
    query string and fragment kept."""
    with translation.override("en"):
        try:
            resolve(f"/en{urlsplit(english).path}")
        except Resolver404:
            raise AssertionError(f"no page has the English path /en{english}") from None
        return translate_url(f"/en{english}", language)
