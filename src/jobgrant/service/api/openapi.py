"""The OpenAPI document, completed where Ninja leaves gaps.

Ninja documents every answer as application/json and only documents the bodies it validates
itself. So: refusals (4xx) are documented as application/problem+json, the type they are sent
with; the bodies the rules kernel reads by hand (api/bodies.py) are documented from their Schema
classes, which go into the document's components with the others; and the application body gets
an example dated from today, with links from the application's creation to the operations on it
(what a client, or Schemathesis's stateful phase, needs to walk an application's life); and
every operation declares the 414 the HTTP server gives a request line too long to read.
"""

from __future__ import annotations

import copy
import datetime as dt
import functools
from typing import Any

from django.utils import timezone
from ninja import NinjaAPI, Schema
from ninja.openapi.schema import OpenAPISchema
from ninja.operation import Operation

from jobgrant.rules.codes import fiscal_year_start
from jobgrant.service.api.examples import EXAMPLE_DECLARATIONS
from jobgrant.service.api.problems import PROBLEM_JSON
from jobgrant.service.api.schemas import Problem

REF_TEMPLATE = "#/components/schemas/{model}"
# gunicorn refuses a request line over 4,094 bytes before the application sees it, with a page
# of its own: any operation may answer it, and not as problem+json.
URI_TOO_LONG = {"description": "URI Too Long: the HTTP server refused the request line."}
_PROBLEM_CONTENT = {PROBLEM_JSON: {"schema": {"$ref": REF_TEMPLATE.format(model="Problem")}}}
# api/body_limit.py: a body over the bound, refused before it is read (any POST).
TOO_LARGE = {
    "description": "Content Too Large: the body is over the API's bound (1 MiB).",
    "content": _PROBLEM_CONTENT,
}
# service/outage.py: the database cannot be reached; try again after Retry-After seconds.
UNAVAILABLE = {
    "description": "Service Unavailable: the database cannot be reached for now.",
    "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds."}},
    "content": _PROBLEM_CONTENT,
}
_documented: dict[str, type[Schema]] = {}


def problems(*statuses: int) -> dict[int, type[Problem]]:
    """The refusals an operation may answer, for its `response=` declaration."""
    return dict.fromkeys(statuses, Problem)


def read_by_hand(model: type[Schema], *, required: bool = True) -> dict[str, Any]:
    """`openapi_extra` documenting a body of `model`'s shape that the handler reads itself."""
    _documented[model.__name__] = model
    reference = {"$ref": REF_TEMPLATE.format(model=model.__name__)}
    return {
        "requestBody": {
            "content": {"application/json": {"schema": reference}},
            "required": required,
        }
    }


class DocumentedApi(NinjaAPI):
    def get_openapi_operation_id(self, operation: Operation) -> str:
        return operation.view_func.__name__  # unique across the routers: create_application

    def get_openapi_schema(
        self, *, path_prefix: str | None = None, path_params: dict[str, Any] | None = None
    ) -> OpenAPISchema:
        """The document, made once per process, prefix and day (its example is dated today):
        making it is about 0.3 s of CPU, which every GET of /api/v1/openapi.json (public, and
        read by the docs page) cost. Each caller gets its own copy (20 ms)."""
        if path_prefix is None:
            path_prefix = self.get_root_path(path_params or {})
        key = (path_prefix, timezone.localdate())
        if key not in self._documents:
            self._documents.clear()  # yesterday's
            self._documents[key] = self._document(path_prefix)
        return copy.deepcopy(self._documents[key])

    @functools.cached_property
    def _documents(self) -> dict[tuple[str, dt.date], OpenAPISchema]:
        return {}

    def _document(self, path_prefix: str) -> OpenAPISchema:
        document = super().get_openapi_schema(path_prefix=path_prefix)
        components = document.setdefault("components", {}).setdefault("schemas", {})
        for model in _documented.values():
            schema = model.model_json_schema(ref_template=REF_TEMPLATE)
            components.update(schema.pop("$defs", {}))
            components[model.__name__] = schema
        components["ApplicationBody"]["examples"] = [example_application(timezone.localdate())]
        components["Problem"] = components.get("Problem") or Problem.model_json_schema(
            ref_template=REF_TEMPLATE
        )
        for method, operation in _operations_by_method(document):
            _problems_as_problem_json(operation)
            operation["responses"]["414"] = URI_TOO_LONG
            operation["responses"]["503"] = UNAVAILABLE
            if method == "post":
                operation["responses"]["413"] = TOO_LARGE
        return document


def links_to_the_application(*operation_ids: str) -> dict[str, Any]:
    """OpenAPI links from an answer carrying an application's `id` to the operations on it
    (a client, or Schemathesis's stateful phase, follows them)."""
    return {
        operation_id: {
            "operationId": operation_id,
            "parameters": {"application_id": "$response.body#/id"},
        }
        for operation_id in operation_ids
    }


def example_application(today: dt.date) -> dict[str, Any]:
    """An application the demonstration data accepts (`make run`): the demonstration employer,
    training that starts within this fiscal year's open intake."""
    from jobgrant.service.demo_support import business_number  # the demonstration data, when asked

    year_end = dt.date(fiscal_year_start(today) + 1, 3, 31)
    start = min(today + dt.timedelta(days=14), year_end)
    return {
        "jurisdiction": "ON",
        "region": "3550",
        "employers": [{"id": "acme", "business_number": business_number("10000000")}],
        "training": {
            "course": "CNC machining certificate",
            "setting": "off-site",
            "start_date": start.isoformat(),
            "end_date": (start + dt.timedelta(days=60)).isoformat(),
            "hours": "120",
            "provider": {"name": "Mohawk College", "third_party": True},
        },
        "trainees": [
            {
                "employer_id": "acme",
                "status": "existing-employee",
                "costs": {
                    "tuition": "15000.00",
                    "student_fees": "0.00",
                    "materials": "0.00",
                    "exam_fees": "0.00",
                },
            }
        ],
        "declarations": EXAMPLE_DECLARATIONS,
    }


def _operations_by_method(document: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    paths = document.get("paths", {}).values()
    return [(method, op) for item in paths for method, op in item.items()]


def _problems_as_problem_json(operation: dict[str, Any]) -> None:
    for status, answer in operation.get("responses", {}).items():
        content = answer.get("content", {})
        if int(status) >= 400 and "application/json" in content:
            content[PROBLEM_JSON] = content.pop("application/json")
