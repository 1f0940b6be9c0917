"""The French pages have French addresses (/fr/employeur/…, /fr/participer/…), as Canada.ca
pages have addresses in the page's language; the English ones are unchanged. Each route is the
same page in both languages; an old French address, with the English words, is redirected to
the French one (a bookmark, a link in a message sent before); the language toggle and the
links of a French message lead to the French words."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from django.utils import translation
from tests.conftest import changes_audited
from tests.participants import approved_application, latest_link
from tests.personas import EMPLOYER

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.grants.participants import actions as participant_actions
from jobgrant.service.notifications.models import Message

#: Words of the English paths that a French path may keep, and why.
SAME_IN_FRENCH = {
    "budgets": "a French word too",
    "code": "a French word too",
    "codes": "a French word too",
    "confirmations": "a French word too",
    "decision": "French « décision », without its accent (paths have none)",
    "declarations": "French « déclarations », without its accent",
    "demo": "French « démo », without its accent",
    "evaluation": "French « évaluation », without its accent",
    "invitation": "a French word too",
    "invitations": "a French word too",
    "role": "French « rôle », without its accent",
    "scenarios": "French « scénarios », without its accent",
    "service": "a French word too (« normes de service »)",
    "simulation": "a French word too",
    "simulations": "a French word too",
    "telephone": "French « téléphone », without its accents",
    "csv": "a file's format, not a word",
    "pdf": "a file's format, not a word",
    "svg": "a file's format, not a word",
}
#: English segments written two ways in French, and why.
TWO_WAYS = {"new": "the gender of what is new: a staff member (nouveau), a change (nouvelle)"}
#: A value for each converter, to write an address of each route.
SAMPLES = {"id": 7, "str": "fr", "slug": "trainees"}
PARAMETER = re.compile(r"<(?:(\w+):)?(\w+)>")


def routes(language: str) -> dict[str, str]:
    """Every named web route's path after the language prefix, as written in `language`."""
    found: dict[str, str] = {}

    def walk(patterns: list[URLPattern | URLResolver], prefix: str) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif pattern.name:
                assert pattern.name not in found, pattern.name
                found[pattern.name] = prefix + str(pattern.pattern)

    with translation.override(language):
        walk(get_resolver("jobgrant.service.web.urls").url_patterns, "")
    return found


ENGLISH, FRENCH = routes("en"), routes("fr")


def words(route: str) -> list[str]:
    """The words of a path, without its parameters: "follow-ups/<id:m>/x.csv" -> follow, ups, x,
    csv."""
    return [word for word in re.split(r"[/.\-]", PARAMETER.sub("", route)) if word]


def kwargs_of(route: str) -> dict[str, object]:
    return {name: SAMPLES[kind or "str"] for kind, name in PARAMETER.findall(route)}


def test_both_languages_have_the_same_routes() -> None:
    assert ENGLISH.keys() == FRENCH.keys()
    assert len(ENGLISH) > 100  # the walk found the pages


def test_no_french_address_has_an_english_word() -> None:
    english = {word for route in ENGLISH.values() for word in words(route)}
    found = {
        f"{name}: /fr/{route} ({word})"
        for name, route in FRENCH.items()
        for word in words(route)
        if word in english and word not in SAME_IN_FRENCH
    }
    assert sorted(found) == []
    unused = set(SAME_IN_FRENCH) - {w for route in FRENCH.values() for w in words(route)}
    assert unused == set(), "an allowed word no French address uses any more"


def test_french_addresses_are_plain_letters_without_accents() -> None:
    for name, route in FRENCH.items():
        assert re.fullmatch(r"[a-z0-9/.\-]*", PARAMETER.sub("", route)), (name, route)


def test_an_english_segment_is_always_the_same_french_one() -> None:
    """ "applications" is "demandes" wherever it is: the French paths keep the English ones'
    shape (the same segments, the same parameters in the same places)."""
    seen: dict[str, set[str]] = defaultdict(set)
    for name, route in ENGLISH.items():
        english, french = route.split("/"), FRENCH[name].split("/")
        assert len(english) == len(french), name
        for one, other in zip(english, french, strict=True):
            if PARAMETER.search(one):
                assert PARAMETER.findall(one) == PARAMETER.findall(other), name
            else:
                seen[one].add(other)
    several = {english: sorted(french) for english, french in seen.items() if len(french) > 1}
    assert several.keys() == TWO_WAYS.keys(), several


@pytest.mark.parametrize("name", sorted(ENGLISH))
def test_a_route_is_the_same_page_in_both_languages(name: str) -> None:
    kwargs = kwargs_of(ENGLISH[name])
    matches = {}
    for language in ("en", "fr"):
        with translation.override(language):
            path = reverse(f"web:{name}", kwargs=kwargs)
            assert path.startswith(f"/{language}/")
            matches[language] = resolve(path)
    english, french = matches["en"], matches["fr"]
    assert (french.func, french.kwargs, french.view_name) == (
        english.func,
        english.kwargs,
        english.view_name,
    )


MOVED = sorted(name for name in ENGLISH if ENGLISH[name] != FRENCH[name])


@pytest.mark.django_db
@pytest.mark.parametrize("name", MOVED)
def test_an_old_french_address_is_redirected_for_good_to_the_french_one(name: str) -> None:
    kwargs = kwargs_of(ENGLISH[name])
    with translation.override("en"):
        old = "/fr/" + reverse(f"web:{name}", kwargs=kwargs)[len("/en/") :]
    with translation.override("fr"):
        new = reverse(f"web:{name}", kwargs=kwargs)
    answer = Client().get(f"{old}?page=2")
    assert answer.status_code == 301
    assert answer["Location"] == f"{new}?page=2"


def test_a_form_posted_to_an_old_address_is_redirected_with_its_method(demo: None) -> None:
    """A page loaded before the change posts to the old address: 308 keeps the POST."""
    answer = Client().post("/fr/password-reset/", {"email": "x@example.com"})
    assert answer.status_code == 308
    assert answer["Location"] == "/fr/mot-de-passe-oublie/"


def test_an_old_address_followed_by_a_signed_in_person_opens_the_page_recording_nothing(
    demo: None,
) -> None:
    client = Client()
    client.force_login(EMPLOYER.get())
    before = AuditEntry.objects.count()
    answer = client.get("/fr/employer/", follow=True)
    assert answer.redirect_chain == [("/fr/employeur/", 301)]
    assert answer.status_code == 200 and '<html lang="fr">' in answer.content.decode()
    assert AuditEntry.objects.count() == before


def test_an_address_no_page_has_is_still_not_found(demo: None) -> None:
    for path in ("/fr/employer/nowhere/", "/fr/employeur/claims/", "/en/employeur/"):
        assert Client().get(path).status_code == 404, path


def test_the_language_toggle_leads_to_the_page_s_address_in_the_other_language(
    demo: None,
) -> None:
    client = Client()
    client.force_login(EMPLOYER.get())
    application = approved_application()
    english = client.get(f"/en/employer/applications/{application.pk}/trainees/").content.decode()
    assert f'lang-href="/fr/employeur/demandes/{application.pk}/personnes-en-formation/"' in english
    french = client.get(f"/fr/employeur/demandes/{application.pk}/personnes-en-formation/")
    assert (
        f'lang-href="/en/employer/applications/{application.pk}/trainees/"'
        in french.content.decode()
    )
    # A form's language button (ADR 0039) posts to the same page's French address.
    register = Client().get("/en/register/").content.decode()
    assert 'lang-href="/fr/inscription/"' in register
    assert 'formaction="/fr/inscription/"' in register


def test_a_message_sent_in_french_links_to_the_french_address(demo: None) -> None:
    entries = changes_audited()
    slot = participant_actions.invite_participant(
        EMPLOYER.get(),
        approved_application(),
        {"trainee": 0, "email": "amelie@example.com", "language": "fr"},
    )
    assert changes_audited() > entries
    language, token = latest_link(slot)
    assert language == "fr"
    message = Message.objects.filter(subject_id=str(slot.pk)).latest("id")
    assert f"/fr/participer/{token}/" in message.body
    assert "/participate/" not in message.body
    assert Client().get(f"/fr/participer/{token}/").status_code == 200
    assert Participant.objects.get(pk=slot.pk).state == "invited"
