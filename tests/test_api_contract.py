"""Every REST route, called the way an outside client calls it: a Bearer token, JSON bodies."""

import re

import pytest
from ninja import Schema

from apps.accounts.models import ApiToken
from cognivault_site.api import api

pytestmark = pytest.mark.django_db
METHODS = {"get", "post", "put", "patch", "delete"}


def routes() -> list[tuple[str, str]]:
    paths = api.get_openapi_schema()["paths"]
    return [(method, path) for path, item in paths.items() for method in item if method in METHODS]


def test_the_contract_routes_of_the_spec_exist():
    listed = {path for _, path in routes()}
    for path in [
        "/api/v1/health", "/api/v1/auth/token", "/api/v1/accounts/students",
        "/api/v1/vault/categories", "/api/v1/vault/documents", "/api/v1/vault/urls",
        "/api/v1/vault/documents/{document_id}", "/api/v1/vault/ingest",
        "/api/v1/vault/ingest/{run_id}", "/api/v1/vault/search", "/api/v1/vault/stats",
        "/api/v1/chat/sessions", "/api/v1/chat/transcribe",
        "/api/v1/study/quizzes", "/api/v1/study/workshops", "/api/v1/study/decks",
        "/api/v1/study/mindmaps", "/api/v1/progress/summary", "/api/v1/progress/heatmap",
        "/api/v1/progress/achievements",
    ]:  # fmt: skip
        assert path in listed


def test_a_token_client_never_gets_a_server_error_or_a_login_prompt(client, alice):
    _, token = ApiToken.objects.issue(alice, "contract test")
    for method, path in routes():
        url = re.sub(r"\{[^}]+\}", "999999", path)
        body = {} if method == "get" else {"data": "{}", "content_type": "application/json"}
        response = getattr(client, method)(url, **body, HTTP_AUTHORIZATION=f"Bearer {token}")
        where = f"{method.upper()} {url} answered {response.status_code}"
        assert response.status_code < 500, where
        if path != "/api/v1/auth/token":
            assert response.status_code != 401, where
        if response.status_code >= 400:
            assert "detail" in response.json(), where


def operations() -> list[tuple[str, str, dict]]:
    paths = api.get_openapi_schema()["paths"]
    return [(m, p, op) for p, item in paths.items() for m, op in item.items() if m in METHODS]


def test_every_operation_lists_the_errors_it_shares_with_the_others():
    for method, path, operation in operations():
        listed = set(operation["responses"])
        where = f"{method.upper()} {path}"
        if operation.get("security"):
            assert 401 in listed, where
            assert method == "get" or 403 in listed, where  # the session's CSRF check
        if operation.get("parameters") or "requestBody" in operation:
            assert 422 in listed, where
        if "requestBody" in operation:
            assert 400 in listed, where
            assert 413 in listed, where  # a body past what the web server takes
        if any(parameter["in"] == "query" for parameter in operation.get("parameters", [])):
            assert 414 in listed, where  # a query past what the web server reads
        for status in listed - {200, 201, 202, 204}:
            content = operation["responses"][status]["content"]["application/json"]
            assert content["schema"] == {"$ref": "#/components/schemas/ErrorOut"}, where


def test_a_search_lists_the_414_of_an_address_too_long_for_the_server():
    search = api.get_openapi_schema()["paths"]["/api/v1/vault/search"]["get"]
    assert "16 KB" in search["responses"][414]["description"]


def test_a_body_taking_operation_lists_the_413_of_a_body_too_large_for_the_server():
    rename = api.get_openapi_schema()["paths"]["/api/v1/chat/sessions/{session_id}"]["patch"]
    assert "MAX_BODY_MB" in rename["responses"][413]["description"]


def test_the_schema_lists_each_models_choices():
    from apps.study.quizzes.models import Difficulty, Question
    from apps.study.workshops.models import Lesson
    from apps.vault.models import Document, IngestRun, IngestStep

    schemas = api.get_openapi_schema()["components"]["schemas"]

    def values(schema: str, field: str) -> list:
        return schemas[schema]["properties"][field]["enum"]

    assert values("DocumentOut", "status") == Document.Status.values
    assert values("DocumentOut", "scope") == Document.Scope.values
    assert values("RunOut", "status") == IngestRun.Status.values
    assert values("StepOut", "status") == IngestStep.Status.values
    assert values("LessonOut", "status") == Lesson.Status.values
    assert values("QuizListOut", "difficulty") == Difficulty.values
    assert values("QuestionOut", "type") == Question.Kind.values


@pytest.mark.parametrize("body", ["null", "[]", '"title"', "7"])
def test_a_body_that_is_not_an_object_is_refused_not_read_as_empty(alice_client, body):
    response = alice_client.post("/api/v1/chat/sessions", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"detail": f"The body must be a JSON object, not {body}."}
    assert not alice_client.get("/api/v1/chat/sessions").json()


def test_text_with_a_nul_character_is_refused_in_a_body_and_stores_nothing(alice_client, alice):
    # PostgreSQL stores no NUL character and SQLite would: refused alike, before any query.
    body = {"title": "Deck", "cards": [{"front": "Zelle\u0000", "back": "cell"}]}
    response = alice_client.post("/api/v1/study/decks", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"detail": "Text cannot contain NUL characters (\\u0000)."}
    assert not alice.decks.exists()


def test_a_query_with_a_nul_character_is_a_422_naming_the_parameter(alice_client):
    response = alice_client.get("/api/v1/vault/search", {"q": "Zelle\x00"})
    assert response.status_code == 422
    assert [error["loc"] for error in response.json()["detail"]] == [["q"]]


TOO_BIG = 2**63  # one more than the largest key


@pytest.mark.parametrize(
    ("method", "url", "body"),
    [
        ("post", f"/api/v1/study/decks/{TOO_BIG}/cards/1/review", {"outcome": "got_it"}),
        ("get", f"/api/v1/vault/search?q=cells&document={TOO_BIG}", None),
        ("post", "/api/v1/study/decks", {"category_ids": [TOO_BIG]}),
        ("post", "/api/v1/vault/ingest", {"document_ids": [0]}),
        ("delete", "/api/v1/chat/sessions/-1", None),
    ],
)
def test_an_id_out_of_the_databases_range_is_a_422_wherever_it_is(alice_client, method, url, body):
    sent = {} if body is None else {"data": body, "content_type": "application/json"}
    response = getattr(alice_client, method)(url, **sent)
    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["type"] in {"less_than_equal", "greater_than_equal"}


def path_with(path: str, value: str) -> str:
    """The route's path with `value` as every id (or number), and a format it serves."""
    path = path.replace("{fmt}", "csv").replace("{day}", "2026-01-05")
    return re.sub(r"\{[^}]+\}", value, path)


@pytest.mark.parametrize("value", ["abc", "-1", "0"])
def test_an_id_in_a_path_that_is_not_a_key_is_a_json_422_on_every_route(alice_client, value):
    for method, path, _ in operations():
        url = path_with(path, value)
        if url == path_with(path, "1"):  # no id in it (a day, a format)
            continue
        response = getattr(alice_client, method)(url, content_type="application/json")
        where = f"{method.upper()} {url} answered {response.status_code}"
        assert response.status_code == 422, where
        assert response.json()["detail"], where


def test_a_body_too_big_to_read_is_a_json_400_and_stores_nothing(alice_client, settings):
    body = '{"title": "' + "x" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE + '"}'
    response = alice_client.post("/api/v1/chat/sessions", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"detail": "The request body is larger than 2.5 MB."}
    assert not alice_client.get("/api/v1/chat/sessions").json()


def test_a_request_of_too_many_files_is_a_json_400(alice_client, settings):
    from django.core.files.uploadedfile import SimpleUploadedFile

    files = [
        SimpleUploadedFile(f"{n}.txt", b"text")
        for n in range(settings.DATA_UPLOAD_MAX_NUMBER_FILES + 1)
    ]
    response = alice_client.post("/api/v1/vault/documents", {"file": files})
    assert response.status_code == 400
    assert response.json() == {"detail": "At most 100 files per request."}


@pytest.mark.parametrize("url", ["/api/v1/vault/documents", "/api/v1/chat/sessions"])
def test_a_multipart_body_that_cannot_be_read_is_a_json_400(alice_client, url):
    response = alice_client.post(url, b"--", content_type="multipart/form-data")
    assert response.status_code == 400
    assert response.json()["detail"]


def request_schemas(schema: dict) -> list[dict]:
    """Every schema a request's body or parameters hold, components followed through `$ref`."""
    components, found, todo = schema["components"]["schemas"], [], []
    for item in schema["paths"].values():
        for operation in item.values():
            todo += [parameter["schema"] for parameter in operation.get("parameters", [])]
            content = operation.get("requestBody", {}).get("content", {})
            todo += [kind["schema"] for kind in content.values()]
    seen = set()
    while todo:
        node = todo.pop()
        if isinstance(node, list):
            todo += node
        elif isinstance(node, dict):
            ref = node.get("$ref", "")
            if ref and ref not in seen:
                seen.add(ref)
                todo.append(components[ref.rsplit("/", 1)[-1]])
            found.append(node)
            todo += [value for key, value in node.items() if key not in {"default", "enum"}]
    return found


def test_the_schema_allows_no_nul_character_and_no_field_a_request_does_not_have():
    # The server refuses both (a NUL anywhere in a body, keys included): the schema says so.
    for node in request_schemas(api.get_openapi_schema()):
        if node.get("type") == "string" and not {"format", "enum"} & node.keys():
            assert re.search(node["pattern"], "a\x00b") is None, node
        if node.get("type") == "object" and "properties" in node:
            assert node["additionalProperties"] is False, node


@pytest.mark.parametrize(
    ("method", "url", "body"),
    [
        ("post", "/api/v1/chat/sessions", {"title": ""}),
        ("post", "/api/v1/chat/sessions", {"title": " \t"}),
        ("post", "/api/v1/vault/urls", {"url": ""}),
        ("post", "/api/v1/vault/urls", {"url": "ftp://example.org/notes"}),
        ("post", "/api/v1/vault/urls", {"url": "https://example.org/a page"}),
        ("post", "/api/v1/study/decks", {"cards": []}),
        ("post", "/api/v1/study/decks", {"cards": [{"front": " ", "back": "cell"}]}),
        ("post", "/api/v1/accounts/students", {"usernames": [" "]}),
    ],
)
def test_what_the_schema_refuses_is_a_422_naming_the_field(tess_client, method, url, body):
    response = getattr(tess_client, method)(url, body, content_type="application/json")
    assert response.status_code == 422, response.content
    [error] = response.json()["detail"]
    assert error["loc"][:3] == ["body", "payload", *body], error


@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/api/v1/chat/sessions", {"title": "Cells"}),
        ("/api/v1/study/decks", {"title": "Cells", "cards": [{"front": "Zelle", "back": "cell"}]}),
    ],
)
def test_a_title_is_renamed_or_left_as_it_is_never_made_blank(alice_client, url, body):
    made = alice_client.post(url, body, content_type="application/json").json()
    url = f"{url}/{made['id']}"
    blank = alice_client.patch(url, {"title": "  "}, content_type="application/json")
    assert blank.status_code == 422
    assert blank.json()["detail"][0]["msg"] == "This cannot be blank: write something."
    unchanged = alice_client.patch(url, content_type="application/json")
    assert (unchanged.status_code, unchanged.json()["title"]) == (200, "Cells")
    renamed = alice_client.patch(url, {"title": "Cell biology"}, content_type="application/json")
    assert renamed.json()["title"] == "Cell biology"


def test_the_not_blank_pattern_and_the_check_agree_on_every_character():
    # Schemathesis (and any client) reads the pattern; the server runs `not_blank`.
    from apps.accounts.api import NOT_BLANK

    said = re.compile(NOT_BLANK)
    for code in range(1, 0x110000):
        text = f"{chr(code)} "
        assert bool(said.search(text)) == bool(text.strip()), hex(code)


def test_an_upload_leaves_out_a_field_it_does_not_name_and_the_schema_says_so(alice_client):
    # A form cannot send null: the schema offers only a value for the optional fields.
    upload = api.get_openapi_schema()["paths"]["/api/v1/vault/documents"]["post"]
    form = upload["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert form["properties"]["category"]["type"] == "integer"
    assert form["properties"]["scope"]["enum"] == ["class", "personal"]
    assert form["required"] == ["file"]


def test_no_two_schemas_of_the_api_share_a_name():
    """The OpenAPI schema names each shape by its class's name alone: two apps' `ImportOut`s
    were one, the later standing for both in the docs and in every client made from them."""
    found, waiting = {}, list(Schema.__subclasses__())
    while waiting:
        shape = waiting.pop()
        waiting += shape.__subclasses__()
        if shape.__module__.startswith(("apps.", "cognivault_site.")):
            found.setdefault(shape.__name__, set()).add(f"{shape.__module__}.{shape.__name__}")
    assert {name: where for name, where in found.items() if len(where) > 1} == {}
