"""The REST API under /api/v1/: each app's router, session or Bearer-token auth, JSON errors."""

import json

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError
from ninja import NinjaAPI, Schema
from ninja.errors import HttpError, ValidationError
from ninja.parser import Parser

from apps.accounts.api import BearerToken, BrowserSession
from apps.accounts.api import router as accounts_router
from apps.accounts.ratelimits import RateLimited
from apps.chat.api import router as chat_router
from apps.chat.errors import ChatError
from apps.classes.api import router as classes_router
from apps.classes.errors import ClassError
from apps.llm.api import router as llm_router
from apps.progress.api import router as progress_router
from apps.study import kinds
from apps.study.api import router as study_router
from apps.study.classsets.api import router as class_sets_router
from apps.study.errors import StudyError
from apps.vault.api import router as vault_router
from apps.vault.errors import VaultError
from cognivault_site import health


class BodyNotAnObject(ValueError):
    pass


class NulInText(ValueError):
    pass


NUL_TEXT = "Text cannot contain NUL characters (\\u0000)."
# What the schema says of every string a client sends: no NUL (a field with a pattern of its
# own states it there).
NO_NUL = r"^[^\x00]*$"


def holds_nul(value: object) -> bool:
    """Whether a NUL character is in any string of a parsed body or query, keys included:
    PostgreSQL stores none (SQLite would), so it is refused alike on both."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(holds_nul(key) or holds_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(holds_nul(item) for item in value)
    return False


class ObjectBodies(Parser):
    """Every JSON body is an object. ninja reads a schema's fields off whatever was sent, so
    `null`, a list or a bare string would otherwise pass as `{}` (or worse, as attributes).
    No text holds a NUL character, in a body or a query."""

    def parse_body(self, request: HttpRequest) -> dict:
        data = super().parse_body(request)
        if not isinstance(data, dict):
            raise BodyNotAnObject(f"The body must be a JSON object, not {json.dumps(data)[:40]}.")
        if holds_nul(data):
            raise NulInText(NUL_TEXT)
        return data

    def parse_querydict(self, data, list_fields: list[str], request: HttpRequest) -> dict:
        parsed = super().parse_querydict(data, list_fields, request)
        refused = [key for key, value in parsed.items() if holds_nul(key) or holds_nul(value)]
        if refused:
            raise ValidationError(
                [{"type": "string_nul", "loc": (key,), "msg": NUL_TEXT} for key in refused]
            )
        return parsed


# What ninja, the session and the web server answer on any route of a kind, so the schema lists
# them once here; each route lists its own (403 teacher-only, 404 lookups, 409, 413 a quota,
# 429, 502, 503).
SHARED_ERRORS = {
    400: "The body is not a JSON object (or not readable at all).",
    401: "No valid session or Bearer token.",
    403: "A write through the browser session without its CSRF token.",
    # Refused by the web server itself (cognivault_site/webserver.py), before the API reads it.
    413: "The body is larger than the web server takes: MAX_BODY_MB (1 MB), or on a route "
    "that takes files MAX_UPLOAD_MB from someone signed in.",
    414: "The address, with its query, is longer than 16 KB.",
    422: "A parameter or the body failed validation; `detail` lists the fields.",
}
SAFE_METHODS = {"get", "head", "options"}


def shared_errors(method: str, operation: dict) -> set[int]:
    errors = set()
    if operation.get("security"):
        errors.add(401)
        if method not in SAFE_METHODS:
            errors.add(403)
    if operation.get("parameters") or "requestBody" in operation:
        errors.add(422)
    if any(parameter["in"] == "query" for parameter in operation.get("parameters", [])):
        errors.add(414)
    if "requestBody" in operation:
        errors |= {400, 413}
    return errors


def state_no_nul(schema: object, components: dict, seen: set[str]) -> None:
    """Gives each string a request holds (in a body, a form or a parameter, followed through
    its `$ref`s) the NO_NUL pattern, unless it has a pattern, a format (a file, a date) or a
    list of the values it takes; and each object with named fields no others: ObjectBodies
    refuses a NUL in any key or value, read or not."""
    if isinstance(schema, list):
        for item in schema:
            state_no_nul(item, components, seen)
        return
    if not isinstance(schema, dict):
        return
    if isinstance(schema.get("$ref"), str):
        name = schema["$ref"].rsplit("/", 1)[-1]
        if name not in seen:
            seen.add(name)
            state_no_nul(components[name], components, seen)
    if schema.get("type") == "string" and not {"format", "enum", "const"} & schema.keys():
        schema.setdefault("pattern", NO_NUL)
    if schema.get("type") == "object" and "properties" in schema:
        schema.setdefault("additionalProperties", False)
    for key, value in schema.items():
        if key not in ("default", "example", "examples", "enum", "const"):
            state_no_nul(value, components, seen)


def form_fields_never_null(operation: dict) -> None:
    """A form cannot send null: an optional field of a multipart body is left out for none, so
    the schema offers only its value."""
    form = operation.get("requestBody", {}).get("content", {}).get("multipart/form-data", {})
    for field in form.get("schema", {}).get("properties", {}).values():
        values = [item for item in field.pop("anyOf", []) if item.get("type") != "null"]
        if values:
            field.pop("default", None)
            field.update(values[0] if len(values) == 1 else {"anyOf": values})


class CogniVaultAPI(NinjaAPI):
    def get_openapi_schema(
        self, *, path_prefix: str | None = None, path_params: dict | None = None
    ) -> dict:
        schema = super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params)
        error = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}}
        for path in schema["paths"].values():
            for method, operation in path.items():
                form_fields_never_null(operation)
                for status in sorted(shared_errors(method, operation)):
                    operation["responses"].setdefault(
                        status, {"description": SHARED_ERRORS[status], "content": error}
                    )
        components = schema["components"]["schemas"]
        requests = [
            [operation.get("parameters", []), operation.get("requestBody", {})]
            for path in schema["paths"].values()
            for operation in path.values()
        ]
        state_no_nul(requests, components, set())
        return schema


api = CogniVaultAPI(
    title="CogniVault API",
    version="1",
    description="Your vault, chats and study tools. Authenticate with the browser session "
    "or `Authorization: Bearer <token>` (create one at POST /auth/token). Errors are "
    '`{"detail": ...}` with the status each operation lists.',
    auth=[BearerToken(), BrowserSession()],
    parser=ObjectBodies(),
    urls_namespace="api",
)


@api.exception_handler(HttpError)
def http_error(request: HttpRequest, error: HttpError) -> HttpResponse:
    # ninja answers every body its parser refuses with "Cannot parse request body"; say why.
    cause = error.__cause__
    detail = str(cause) if isinstance(cause, BodyNotAnObject | NulInText) else str(error)
    return api.create_response(request, {"detail": detail}, status=error.status_code)


def unreadable_request(request: HttpRequest, error: Exception) -> HttpResponse:
    """Django's limits on what it reads of a request, and a multipart body it cannot read, as
    JSON: ninja passes them on, and Django would answer its HTML "Bad Request" page."""
    if isinstance(error, MultiPartParserError):
        detail = f"The multipart body cannot be read: {error}."
    elif isinstance(error, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / 1024 / 1024
        detail = f"The request body is larger than {limit:g} MB."
    elif isinstance(error, TooManyFilesSent):
        detail = f"At most {settings.DATA_UPLOAD_MAX_NUMBER_FILES} files per request."
    else:
        detail = f"At most {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} fields per request."
    return api.create_response(request, {"detail": detail}, status=400)


for unreadable in (MultiPartParserError, RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent):
    api.add_exception_handler(unreadable, unreadable_request)


AppError = ChatError | ClassError | VaultError | StudyError | RateLimited


def app_error(request: HttpRequest, error: AppError) -> HttpResponse:
    """What an app refuses, with the status its error class names, as {"detail": ...}."""
    response = api.create_response(request, {"detail": str(error)}, status=error.status)
    if isinstance(error, RateLimited):
        response["Retry-After"] = str(error.wait)
    return response


for app_errors in (ChatError, ClassError, VaultError, StudyError, RateLimited):
    api.add_exception_handler(app_errors, app_error)


class CheckOut(Schema):
    status: str
    detail: str


class ModelCheckOut(Schema):
    backend: str
    model: str
    ready: bool
    detail: str


class ChatModelOut(ModelCheckOut):
    limits: list[str]


class OllamaOut(Schema):
    host: str
    reachable: bool
    models: list[str]
    detail: str


class ModelsOut(Schema):
    chat: ChatModelOut
    embeddings: ModelCheckOut
    speech: ModelCheckOut
    ollama: OllamaOut


class HealthOut(Schema):
    status: str
    database: CheckOut
    redis: CheckOut
    worker: CheckOut
    models: ModelsOut


class PartOut(Schema):
    status: str


class ModelPartsOut(Schema):
    chat: PartOut
    embeddings: PartOut
    speech: PartOut


class HealthSummaryOut(Schema):
    status: str
    database: PartOut
    redis: PartOut
    worker: PartOut
    models: ModelPartsOut


@api.get("/health", auth=None, response=HealthOut | HealthSummaryOut, tags=["health"])
def get_health(request: HttpRequest):
    """`ok` or `degraded`, and `ok` or `down` per part; a logged-in teacher also gets the
    details (addresses, paths, worker names)."""
    full = health.report()
    # Open to all, so neither auth runs by itself: a teacher's session or token is looked at here.
    user = request.user if request.user.is_authenticated else BearerToken()(request)
    return full if user is not None and user.is_teacher else health.summary(full)


api.add_router("/", accounts_router)
api.add_router("/", classes_router)
# GET /vault/stats (the privacy figures) lives with the privacy audit in apps/llm.
api.add_router("/", llm_router)
api.add_router("/progress/", progress_router)
api.add_router("/vault/", vault_router)
api.add_router("/study/", study_router)
# Each kind's own router, as it declares it (apps/study/kinds.py): the apps are ready before
# the URL table imports this module, so every feature has declared its kind by now.
for kind in kinds.every():
    if kind.router:
        api.add_router("/study/", kind.router)
api.add_router("/study/", class_sets_router)
api.add_router("/chat/", chat_router)
