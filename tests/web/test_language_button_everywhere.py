"""Every form that posts what a person types has the language button (ADR 0039), so that the
header's toggle never empties it: this walks every template, with its includes and the blocks
of the templates it extends put in place, finds each <form method="post"> that has a text
input, a textarea or a select, and fails on one without web/switch_language.html, unless it is
listed below with the reason it need not keep what was typed. The next form cannot forget."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from django.template import engines
from django.template.base import Node, NodeList, TextNode, VariableNode
from django.template.defaulttags import IfNode
from django.template.loader_tags import BlockNode, ExtendsNode, IncludeNode

import jobgrant.service.web

TEMPLATES = Path(jobgrant.service.web.__file__).parent / "templates"

#: Forms that need no language button, each with its reason: "template#form" (the form's id,
#: as the template writes it, or its number on the page when it has none).
WITHOUT_BUTTON = {
    "web/form_page.html#2": "the frame of the short forms: each page that extends it is "
    "walked with its own blocks, and fills the block switch or is listed here",
    "web/staff/setup.html#setup-form": "a new staff account's password, typed twice: a "
    "password is never shown back, so there is nothing to keep",
    "web/sign_in.html#2": "signing in: a name and a password, never shown back; the header's "
    "toggle leads to the sign-in page in the other language",
    "web/second_factor.html#2": "a one-time code, good for 30 seconds: typed again, not kept",
    "web/second_factor_setup.html#2": "a one-time code from the app being set up: typed again",
    "web/account/confirm.html#2": "the password (and a code) asked again before a change: "
    "never shown back",
    "web/account/passkey_add.html#2": "the passkey's name, made with the browser's passkey "
    "ceremony for this page: a toggle would start the ceremony again",
    "web/organizations/members.html#role-form-{{m.pk}}": "one member's role, a select saved "
    "as soon as its button is pressed; the page's language button is the invitation form's",
}

#: A control a person types into or chooses from (a text input of any kind, a textarea, a
#: select, or a bound field whose widget the template does not spell out).
TYPED = re.compile(
    r"<textarea\b|<select\b|<jg-widget>"
    r'|<input\b(?![^>]*\btype="(?:hidden|submit|button|checkbox|radio|file)")',
    re.IGNORECASE,
)
FORM = re.compile(r"<form\b([^>]*)>(.*?)</form>", re.IGNORECASE | re.DOTALL)
WIDGET = re.compile(r"^(?:field|f)$")  # the bound field of web/backoffice/field.html


def flat(name: str, blocks: dict[str, BlockNode] | None = None) -> str:
    """The template's text with its includes and its parents' blocks in place (every branch of
    every condition kept); a variable that renders a bound field is written <jg-widget>."""
    template: Any = engines["django"].engine.get_template(name)
    return walk(template.nodelist, blocks or {})


def walk(nodes: NodeList | list[Node], blocks: dict[str, BlockNode]) -> str:
    out: list[str] = []
    for node in nodes:
        if isinstance(node, ExtendsNode):
            parent = node.parent_name.var
            assert isinstance(parent, str), f"a template extends a variable: {parent}"
            return flat(parent, {**node.blocks, **blocks})  # the child's block wins
        if isinstance(node, BlockNode):
            out.append(walk(blocks.get(node.name, node).nodelist, blocks))
        elif isinstance(node, IncludeNode):
            included = node.template.var
            if isinstance(included, str):
                out.append(flat(included))
        elif isinstance(node, TextNode):
            out.append(node.s)
        elif isinstance(node, VariableNode):
            token = node.filter_expression.token.strip()
            out.append("<jg-widget>" if WIDGET.match(token) else "{{" + token + "}}")
        elif isinstance(node, IfNode):
            out.extend(walk(nodelist, blocks) for _, nodelist in node.conditions_nodelists)
        else:
            for attribute in node.child_nodelists:
                found = getattr(node, attribute, None)
                if found:
                    out.append(walk(found, blocks))
    return "".join(out)


def posted_forms() -> dict[str, str]:
    """Every POST form of every template that has a typed control: "template#form" to its
    text."""
    found: dict[str, str] = {}
    for path in sorted(TEMPLATES.rglob("*.html")):
        name = path.relative_to(TEMPLATES).as_posix()
        for number, match in enumerate(FORM.finditer(flat(name)), start=1):
            attributes, body = match.groups()
            if not re.search(r'method="post"', attributes, re.IGNORECASE):
                continue
            if TYPED.search(body):
                named = re.search(r'\bid="([^"]+)"', attributes)
                found[f"{name}#{named.group(1) if named else number}"] = body
    return found


def test_the_walk_sees_the_forms_it_must() -> None:
    """The walk itself: a form whose fields come through an include (the back office's
    field.html) and a form filled through a parent's block (form_page.html) are found."""
    forms = posted_forms()
    assert "web/officer/review.html#deny-form" in forms
    assert "web/account/email.html#2" in forms
    assert 'name="switch-language"' in forms["web/account/email.html#2"]
    assert "web/sign_in.html#2" in forms


def test_every_form_that_takes_typing_has_the_language_button() -> None:
    forms = posted_forms()
    missing = [
        key
        for key, body in forms.items()
        if 'name="switch-language"' not in body and key not in WITHOUT_BUTTON
    ]
    assert not missing, (
        "These forms take typing but have no language button: include "
        "web/switch_language.html and handle pages.switching_language in the view before "
        "checking anything (ADR 0039), or list the form in WITHOUT_BUTTON with a reason: "
        + ", ".join(missing)
    )
    stale = [key for key in WITHOUT_BUTTON if key not in forms]
    assert not stale, f"Listed in WITHOUT_BUTTON but no such form takes typing: {stale}"
