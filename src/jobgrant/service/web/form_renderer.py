"""Django's form renderer, with its select boxes written in Python (settings.FORM_RENDERER).

Django renders a `<select>` through a template, and each of its options through two more
(`select_option.html`, `attrs.html`): the filter forms of the queue, the budgets and the KPIs
spent 3 to 5 ms of their page on them (docs/benchmarks.md, "The crowd"). Here the same HTML,
byte for byte (tests/web/test_form_renderer.py), is written by string formatting, with every
value escaped as the templates escape it. A select whose options use another template is
rendered by Django's templates as before.
"""

from __future__ import annotations

from typing import Any

from django.forms.renderers import DjangoTemplates
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

SELECT = "django/forms/widgets/select.html"
OPTION = "django/forms/widgets/select_option.html"


class QuickSelects(DjangoTemplates):
    def render(self, template_name: str, context: dict[str, Any], request: Any = None) -> str:
        if template_name == SELECT:
            widget = context["widget"]
            options = [option for _, group, _ in widget["optgroups"] for option in group]
            if all(option["template_name"] == OPTION for option in options):
                return select_html(widget)
        return super().render(template_name, context, request)


def attrs_html(attrs: dict[str, Any]) -> str:
    """What django/forms/widgets/attrs.html writes: ` name="value"`, ` name` for True, nothing
    for False."""
    return "".join(
        f" {conditional_escape(name)}"
        + ("" if value is True else f'="{conditional_escape(str(value))}"')
        for name, value in attrs.items()
        if value is not False
    )


def select_html(widget: dict[str, Any]) -> SafeString:
    """What django/forms/widgets/select.html writes, its options by select_option.html."""
    parts = [f'<select name="{conditional_escape(widget["name"])}"{attrs_html(widget["attrs"])}>']
    for group_name, group, _ in widget["optgroups"]:
        if group_name:
            parts.append(f'\n  <optgroup label="{conditional_escape(group_name)}">')
        for option in group:
            parts.append(
                f'\n  <option value="{conditional_escape(str(option["value"]))}"'
                f"{attrs_html(option['attrs'])}>{conditional_escape(option['label'])}</option>\n"
            )
        if group_name:
            parts.append("\n  </optgroup>")
    parts.append("\n</select>")  # as BaseRenderer.render, which strips the template's output
    return mark_safe("".join(parts))  # every value escaped above
