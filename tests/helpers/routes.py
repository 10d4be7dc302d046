"""Every route of the app, to walk as a person: the pages of the URL map and the operations of
the API's OpenAPI schema, each parameter named by what it points at (a class, a student, a
quiz...), so a test fills them from the rows that exist and walks a new route as soon as it is
added. A parameter nobody named here is "" (`unnamed`): the tests that walk routes refuse one,
so a new kind of id is named here before it ships."""

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import product

from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from apps.study import kinds

# What a route's parameter points at, by its name...
BY_NAME = {
    "class_id": "class",
    "student_pk": "student",
    "student_id": "student",
    "user_id": "student",
    "batch_pk": "batch",
    "teacher_pk": "teacher",
    "token_pk": "student_token",  # a student's API token, on their class's page
    "token_id": "token",  # one's own
    "set_id": "class_set",
    "quiz_id": "quiz",
    "workshop_id": "workshop",
    "deck_id": "deck",
    "card_id": "card",
    "card_pk": "card",
    "mindmap_id": "mindmap",
    "document_id": "document",
    "run_id": "run",
    "category_id": "category",
    "session_id": "thread",
    "thread_id": "thread",
    "attachment_id": "attachment",
    "transcription_id": "transcription",
    "chunk_pk": "chunk",
    "chunk_id": "chunk",
    "attempt_pk": "attempt",
    "position": "position",
    "number": "number",
    "fmt": "format",
    "kind": "kind",
    "day": "day",
}
# ...and a bare `pk` by the segment before it ("item": a study item of the kind before it).
PK_AFTER = {
    "classes": "class",
    "documents": "document",
    "runs": "run",
    "categories": "category",
    "quizzes": "quiz",
    "workshops": "workshop",
    "decks": "deck",
    "mindmaps": "mindmap",
    "class-sets": "class_set",
    "tokens": "token",
    "{kind}": "item",
}
# What points at a row (the rest are plain values: a position, a format, a day).
ROWS = set(BY_NAME.values()) - {"position", "number", "format", "kind", "day"} | {"item"}
# The model of each kind of row; a study kind's (quiz, deck...) is in its registry.
MODELS = {
    "class": "classes.SchoolClass",
    "student": "accounts.User",
    "teacher": "accounts.User",
    "batch": "accounts.StudentBatch",
    "student_token": "accounts.ApiToken",
    "token": "accounts.ApiToken",
    "class_set": "study.ClassSet",
    "card": "study.Card",
    "attempt": "study.Attempt",
    "thread": "chat.Thread",
    "attachment": "chat.Attachment",
    "transcription": "chat.Transcription",
    "document": "vault.Document",
    "chunk": "vault.Chunk",
    "run": "vault.IngestRun",
    "category": "vault.Category",
}


def points_at(path: str, name: str) -> str:
    if name == "pk":
        before = path.split("{pk}")[0].rstrip("/").rsplit("/", 1)[-1]
        return PK_AFTER.get(before, "")
    return BY_NAME.get(name, "")


@dataclass(frozen=True)
class Route:
    """A page (`method` None: its view says which methods it takes) or an API operation."""

    path: str  # each parameter as {name}
    method: str | None = None
    query: tuple[str, ...] = ()  # an API operation's query parameters
    choices: tuple[tuple[str, tuple], ...] = ()  # the values an API parameter allows
    body: dict | None = None  # an API operation's request body schema (JSON or a form)
    form: bool = False  # the body is multipart/form-data
    components: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def params(self) -> dict[str, str]:
        """Each path parameter and what it points at ("" when no one said)."""
        return {name: points_at(self.path, name) for name in re.findall(r"{(\w+)}", self.path)}

    def url(self, values: dict[str, object]) -> str:
        return re.sub(r"{(\w+)}", lambda match: str(values[match.group(1)]), self.path)

    def urls(self, values: dict[str, list]) -> list[str]:
        """The route filled with every combination of `values` (what a parameter points at ->
        the values it takes, but those the API allows); a `{kind}/{pk}` pair takes each kind
        with its own items."""
        allowed = dict(self.choices)
        choices = {n: allowed.get(n) or values.get(k, ()) for n, k in self.params.items()}
        choices["item"] = values.get("item", {})
        names = list(self.params)
        if "kind" in names:
            pairs = [(kind, pk) for kind, pks in choices["item"].items() for pk in pks]
            rest = [n for n in names if n not in ("kind", "pk")]
            return [
                self.url({"kind": kind, "pk": pk, **dict(zip(rest, combo, strict=True))})
                for kind, pk in pairs
                for combo in product(*(choices[n] for n in rest))
            ]
        return [
            self.url(dict(zip(names, combo, strict=True)))
            for combo in product(*(choices[n] for n in names))
        ]


def page_routes(patterns=None, prefix: str = "") -> list[Route]:
    """Every page of the URL map (the API's are its schema's; the admin has its own walk)."""
    found = []
    for pattern in patterns if patterns is not None else get_resolver().url_patterns:
        route = prefix + str(pattern.pattern)
        if route.startswith(("admin/", "api/")):
            continue
        if isinstance(pattern, URLResolver):
            found += page_routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            found.append(Route("/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)))
    return sorted(set(found), key=lambda r: r.path)


def api_routes(client: Client) -> list[Route]:
    """Every operation of the API, read from the schema the API serves."""
    schema = client.get("/api/v1/openapi.json").json()
    components = schema.get("components", {}).get("schemas", {})
    found = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            parameters = operation.get("parameters", [])
            query = tuple(p["name"] for p in parameters if p["in"] == "query")
            choices = tuple(
                (p["name"], tuple(p["schema"]["enum"])) for p in parameters if "enum" in p["schema"]
            )
            content = operation.get("requestBody", {}).get("content", {})
            form = "application/json" not in content and bool(content)
            body = next(iter(content.values()), {}).get("schema") if content else None
            found.append(Route(path, method.upper(), query, choices, body, form, components))
    return found


def example(schema: dict, components: dict) -> object:
    """The plainest value `schema` accepts: what a test sends to reach the lookup behind it."""
    if "$ref" in schema:
        return example(components[schema["$ref"].rsplit("/", 1)[-1]], components)
    if "default" in schema:
        return schema["default"]
    if "allOf" in schema:
        return example(schema["allOf"][0], components)
    if "anyOf" in schema:
        options = [s for s in schema["anyOf"] if s.get("type") != "null"]
        return example(options[0], components) if options else None
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: example(properties[name], components) for name in schema.get("required", [])}
    if kind == "array":
        return [example(schema.get("items", {}), components)] * max(schema.get("minItems", 1), 1)
    if kind == "integer" or kind == "number":
        return max(schema.get("minimum", 1), 1)
    if kind == "boolean":
        return False
    if schema.get("format") == "date":
        return "2026-04-16"
    if schema.get("format") == "binary":  # a form's file: one line, named for any reader
        return SimpleUploadedFile("rows.csv", b"x\n", content_type="text/csv")
    return "x" * max(schema.get("minLength", 1), 1)


def body_fields(route: Route) -> dict[str, str]:
    """The body's fields that point at something (`class_id`...), and what they point at."""
    if not route.body:
        return {}
    schema = route.body
    if "$ref" in schema:
        schema = route.components[schema["$ref"].rsplit("/", 1)[-1]]
    return {
        name: BY_NAME[name] for name in schema.get("properties", {}) if BY_NAME.get(name) in ROWS
    }


def every_row() -> dict[str, object]:
    """Every pk of each kind of row, a study kind's also by kind as "item"."""
    made = {
        name: sorted(kind.model.objects.values_list("pk", flat=True))
        for name, kind in kinds.KINDS.items()
    }
    found = {
        kind: sorted(apps.get_model(label).objects.values_list("pk", flat=True))
        for kind, label in MODELS.items()
    }
    return found | made | {"item": made}


@contextmanager
def quietly() -> Iterator[None]:
    """Walking every route meets thousands of 404s and 405s, each of which Django logs."""
    logging.disable(logging.WARNING)
    try:
        yield
    finally:
        logging.disable(logging.NOTSET)
