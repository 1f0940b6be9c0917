"""The guard that keeps pages and API handlers from writing models outside an action."""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType
from typing import Any

import pytest

from jobgrant.service.registry.models import Employer

pytestmark = pytest.mark.django_db


def as_module(module: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """`function` as if it were defined in `module` (the guard reads a frame's module name)."""
    code = function.__code__
    namespace = {**function.__globals__, "__name__": module}
    return FunctionType(code, namespace, code.co_name, None, function.__closure__)


def rename_employers(name: str) -> int:
    return Employer.objects.update(name=name)


def test_a_page_that_writes_a_model_itself_fails_the_test(
    demo: None, write_outside_action: type[AssertionError]
) -> None:
    page = as_module("jobgrant.service.web.views.example", rename_employers)
    with pytest.raises(write_outside_action, match=r"jobgrant\.service\.web\.views\.example"):
        page("Renamed")


def test_an_api_handler_that_writes_a_model_itself_fails_the_test(
    demo: None, write_outside_action: type[AssertionError]
) -> None:
    handler = as_module("jobgrant.service.api.example", rename_employers)
    with pytest.raises(write_outside_action, match="outside an action"):
        handler("Renamed")


def test_a_page_that_writes_through_an_action_passes(demo: None) -> None:
    action = as_module("jobgrant.service.registry.actions", rename_employers)

    def page() -> int:
        return action("Renamed")

    assert as_module("jobgrant.service.web.views.example", page)() > 0
    assert set(Employer.objects.values_list("name", flat=True)) == {"Renamed"}


def test_an_action_module_split_off_actions_py_is_a_writer_too(demo: None) -> None:
    action = as_module("jobgrant.service.grants.applications.assignment", rename_employers)

    def page() -> int:
        return action("Renamed")

    assert as_module("jobgrant.service.web.views.example", page)() > 0


def test_a_page_module_named_like_an_action_is_still_a_page(
    demo: None, write_outside_action: type[AssertionError]
) -> None:
    page = as_module("jobgrant.service.web.views.officer_actions", rename_employers)
    with pytest.raises(write_outside_action, match="outside an action"):
        page("Renamed")


def test_reads_from_a_page_are_not_writes(demo: None) -> None:
    def page() -> int:
        return Employer.objects.count()

    assert as_module("jobgrant.service.web.views.example", page)() > 0
