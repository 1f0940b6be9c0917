"""What every page shares, each in one place (web/pages.py): the role gates and the 404 for a
file the user may not see."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.contrib.auth.models import AnonymousUser
from django.http import Http404, HttpResponse

import jobgrant.service as service
from jobgrant.service.accounts.models import Role, User
from jobgrant.service.errors import ServiceError, not_found
from jobgrant.service.refusals import forbidden_for
from jobgrant.service.web import pages

WEB = Path(service.__file__).parent / "web"
GATE_MAKERS = {"user_required", "role_required"}


def modules_beside_pages() -> list[tuple[str, ast.Module]]:
    return [
        (str(path.relative_to(WEB)), ast.parse(path.read_text()))
        for path in sorted(WEB.rglob("*.py"))
        if "migrations" not in path.parts and path != WEB / "pages.py"
    ]


def _called_name(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        return _called_name(node.func)
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def test_each_role_gate_is_defined_once_in_pages() -> None:
    """No module names a gate of its own (`officer_required = user_required(Role.OFFICER)`):
    they import the one of web/pages.py."""
    own = [
        f"{name}:{node.lineno}"
        for name, tree in modules_beside_pages()
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and _called_name(node.value) in GATE_MAKERS
    ]
    assert not own, own


def test_a_page_gated_to_one_role_uses_that_role_s_gate() -> None:
    """`@user_required(Role.EMPLOYER)` or `@role_required(Role.EMPLOYER)` written on a view is
    employer_required spelled again."""
    gated_by_hand = [
        f"{name}:{node.lineno}"
        for name, tree in modules_beside_pages()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and _called_name(node.func) in GATE_MAKERS
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Attribute)
        and hasattr(pages, f"{node.args[0].attr.lower()}_required")
    ]
    assert not gated_by_hand, gated_by_hand


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("gate", "role"),
    [
        (pages.employer_required, Role.EMPLOYER),
        (pages.officer_required, Role.OFFICER),
        (pages.finance_required, Role.FINANCE),
        (pages.analyst_required, Role.ANALYST),
        (pages.auditor_required, Role.AUDITOR),
        (pages.admin_required, Role.ADMIN),
    ],
)
def test_each_role_s_gate_lets_in_that_role_only(gate, role, rf) -> None:
    page = gate(lambda request, user: HttpResponse(user.username))
    answers = {}
    for someone in Role.values:
        request = rf.get("/en/somewhere/")
        request.user = User(username=f"someone-{someone}", role=someone)
        answers[someone] = page(request).status_code
    assert answers == {someone: 200 if someone == role else 403 for someone in Role.values}
    request = rf.get("/en/somewhere/")
    request.user = AnonymousUser()
    assert page(request).status_code == 302  # to the sign-in page


def _turns_a_refusal_into_404_by_hand(node: ast.AST) -> bool:
    if not isinstance(node, ast.Try):
        return False
    return any(
        _called_name(handler.type or ast.Name(id="")) == "ServiceError"
        and len(handler.body) == 1
        and isinstance(handler.body[0], ast.Raise)
        and _called_name(handler.body[0].exc or ast.Name(id="")) == "Http404"
        for handler in node.handlers
    )


def test_no_page_writes_the_fetch_or_404_itself() -> None:
    """`try: get_visible_x(...) except ServiceError: raise Http404` is visible_or_404's job."""
    by_hand = [
        f"{name}:{node.lineno}"
        for name, tree in modules_beside_pages()
        for node in ast.walk(tree)
        if _turns_a_refusal_into_404_by_hand(node)
    ]
    assert not by_hand, by_hand


def test_visible_or_404_answers_what_the_fetch_found() -> None:
    assert pages.visible_or_404(lambda user, pk, *, extra: (user, pk, extra), "u", 3, extra=1) == (
        "u",
        3,
        1,
    )


@pytest.mark.parametrize("refusal", [not_found(), forbidden_for("NOT_THE_APPLICANT")])
def test_visible_or_404_turns_any_refusal_into_404_keeping_the_refusal(refusal) -> None:
    """The refusal stays the 404's context: the 404 handler sees whether it was audited."""

    def fetch() -> None:
        raise refusal

    with pytest.raises(Http404) as raised:
        pages.visible_or_404(fetch)
    assert raised.value.__context__ is refusal


def test_visible_or_404_lets_anything_but_a_refusal_through() -> None:
    def fetch() -> None:
        raise LookupError("a bug, not a refusal")

    with pytest.raises(LookupError):
        pages.visible_or_404(fetch)


def _turns_a_404_refusal_into_404_by_hand(node: ast.AST) -> bool:
    """`if error.status == 404: raise Http404` is not_found_is_404's job."""
    return (
        isinstance(node, ast.If)
        and "404" in ast.unparse(node.test)
        and any(
            isinstance(s, ast.Raise) and _called_name(s.exc or ast.Name(id="")) == "Http404"
            for s in node.body
        )
    )


def test_no_page_turns_an_action_s_404_into_the_page_s_by_hand() -> None:
    by_hand = [
        f"{name}:{node.lineno}"
        for name, tree in modules_beside_pages()
        for node in ast.walk(tree)
        if _turns_a_404_refusal_into_404_by_hand(node)
    ]
    assert not by_hand, by_hand


def _page_handling(refusal: ServiceError) -> None:
    try:
        raise refusal
    except ServiceError as error:
        pages.not_found_is_404(error)


def test_an_action_s_404_refusal_is_the_page_s_404_and_stays_its_context() -> None:
    refusal = not_found()
    with pytest.raises(Http404) as raised:
        _page_handling(refusal)
    assert raised.value.__context__ is refusal


def test_an_action_s_other_refusals_are_left_to_the_page() -> None:
    assert pages.not_found_is_404(forbidden_for("NOT_THE_APPLICANT")) is None
