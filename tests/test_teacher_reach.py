"""What a teacher reaches, tried on every route: each page of the URL map and each operation of
the API, with another teacher's class, student, class set (and the item it hands out, its card,
the student's attempt), batch, and the student's token, chat and document, answers as if they
did not exist (docs/classroom.md#who-reaches-what). The routes are read from the URL map and the
API's schema, so a route added tomorrow is tried too; one whose parameter says nothing of what
it points at fails until tests/helpers/routes.py names it."""

import json
from itertools import combinations

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib import admin as django_admin
from django.core.cache import cache
from django.urls import reverse

from apps.classes import rosters
from apps.study import kinds
from cognivault_site.routing import websocket_urlpatterns
from tests.helpers.classes import make_class
from tests.helpers.routes import (
    BY_NAME,
    MODELS,
    ROWS,
    Route,
    api_routes,
    body_fields,
    example,
    page_routes,
    quietly,
)
from tests.helpers.school import admin, co_teacher, side
from tests.helpers.slowness import scaled
from tests.helpers.users import client_for

JSON = "application/json"
MISSING = 99_999_999  # no row has it
# Values of the parameters that point at no row.
PLAIN = {"position": [0], "number": [1], "format": ["csv", "md"], "day": ["2026-04-15"]}
# Shared by the whole school on purpose: the categories of the vault.
SHARED = {"category"}
# Pages whose query names a class; the API's query parameters come from its schema.
PAGE_QUERIES = {"/study/class-sets/": "class", "/progress/class/": "class"}
# Answers that say nothing of the row: not found, a method the route never takes, and the
# admin's routes refusing every teacher before they look anything up.
REFUSED = {403, 404, 405}


@pytest.fixture
def school(db):
    """Tess's class (the one who tries) and Otto's, whose rows she tries."""
    ours = side("tess", "Tess-7b", "Alice Lane")
    theirs = side("otto", "Otto-9c", "Sam Stone")
    return ours, theirs


def slots(route: Route) -> dict[str, tuple[str, str]]:
    """Where the route takes a row: name -> (path, query or body; what it points at). The pk
    of a {kind}/{pk} pair is an item of each kind in turn (`tries`)."""
    tried = ROWS - SHARED - {"item"}
    found = {name: ("path", kind) for name, kind in route.params.items() if kind in tried}
    found |= {n: ("query", BY_NAME[n]) for n in route.query if BY_NAME.get(n) in tried}
    return found | {
        name: ("body", kind) for name, kind in body_fields(route).items() if kind in tried
    }


def request(client, route: Route, method: str, values: dict, where: dict) -> object:
    """Send `method` to the route with `values` in the path, query and body."""
    path_values = {n: v for n, v in values.items() if where.get(n, "path") == "path"}
    url = route.url(path_values)
    query = "&".join(f"{n}={v}" for n, v in values.items() if where.get(n) == "query")
    url += f"?{query}" if query else ""
    if route.method is None:
        return getattr(client, method)(url)
    body = example(route.body, route.components) if route.body else None
    if isinstance(body, dict):
        body |= {n: v for n, v in values.items() if where.get(n) == "body"}
    if route.form:
        return client.post(url, body or {})
    data = json.dumps(body) if body is not None else ""
    return client.generic(method.upper(), url, data, content_type=JSON)


def answer(response) -> tuple:
    """What an answer says: its status and, from the API, its JSON."""
    if response.content and response.get("Content-Type", "").startswith(JSON):
        return response.status_code, response.json()
    return response.status_code, None


def tries(route: Route, ours: dict, theirs: dict) -> list[tuple[dict, dict, dict, bool]]:
    """(values with theirs, the same with MISSING for theirs, where each goes, on the path)
    for every way of putting one or more of their rows in the route, ours in the rest."""
    found = slots(route)
    plain = [n for n, k in route.params.items() if k in PLAIN]
    out = []
    for kind in list(kinds.KINDS) if "kind" in route.params else [None]:
        named = found | ({"pk": ("path", kind)} if kind else {})
        where = {name: place for name, (place, _) in named.items()}
        for size in range(1, len(named) + 1):
            for chosen in combinations(named, size):
                for fixed in _plain_values(route, plain):
                    values = {
                        n: (theirs if n in chosen else ours)[k] for n, (_, k) in named.items()
                    }
                    missing = {n: MISSING if n in chosen else values[n] for n in named}
                    extra = fixed | ({"kind": kind} if kind else {})
                    on_path = any(named[n][0] == "path" for n in chosen)
                    out.append((values | extra, missing | extra, where, on_path))
    return out


def _plain_values(route: Route, plain: list[str]) -> list[dict]:
    allowed = dict(route.choices)
    combos = [{}]
    for name in plain:
        values = allowed.get(name) or PLAIN[route.params[name]]
        combos = [c | {name: v} for c in combos for v in values]
    return combos


def misanswered(client, route: Route, method: str, attempt: tuple, names: list[str]) -> list:
    """What is wrong with the answer to their rows: it differs from the answer to rows that do
    not exist, it is not a refusal when their row is in the path, or it names them."""
    values, missing, where, on_path = attempt
    cache.clear()  # no rate limit answers in place of the route
    got = request(client, route, method, values, where)
    expected = request(client, route, method, missing, where)
    said = f"{method.upper()} {route.url(values)} {values}"
    if answer(got) != answer(expected) or (on_path and got.status_code not in REFUSED):
        return [f"{said}: {answer(got)}"]
    if got.status_code < 300 and any(name in got.text for name in names):
        return [f"{said} names their rows"]
    return []


def every_route(client) -> list[Route]:
    return page_routes() + api_routes(client)


def methods_of(route: Route) -> list[str]:
    return ["get", "post"] if route.method is None else [route.method.lower()]


def test_every_route_names_what_its_ids_point_at(tess_client):
    unnamed = [
        f"{route.method or 'page'} {route.path}: {{{name}}}"
        for route in every_route(tess_client)
        for name, kind in route.params.items()
        if not kind
    ]
    assert unnamed == [], "name them in tests/helpers/routes.py"
    assert ROWS - {"item"} <= set(MODELS) | set(kinds.KINDS)  # every row a walk can fill


def test_another_teachers_rows_answer_as_if_they_did_not_exist(school):
    ours, theirs = (s.ids() for s in school)
    theirs_names = [school[1].school_class.name, school[1].student.username]
    client = client_for(school[0].teacher)
    wrong, tried = [], set()
    routes = [r for r in every_route(client) if not set(r.params.values()) & SHARED]
    # Deleting last: a route that let her through must not take the rows the others try.
    routes.sort(key=lambda r: r.method == "DELETE")
    with quietly():
        for route in routes:
            for method in methods_of(route):
                for attempt in tries(route, ours, theirs):
                    tried.add(f"{method.upper()} {route.path}")
                    wrong += misanswered(client, route, method, attempt, theirs_names)
    assert wrong == [], "\n".join(wrong)
    for expected in (
        "POST /classes/{pk}/students/{student_pk}/reset/",
        "GET /classes/{pk}/batches/{batch_pk}/",
        "POST /study/decks/{pk}/cards/{card_pk}/review/",
        "GET /study/class-sets/{pk}/results.{fmt}",
        "DELETE /api/v1/classes/{class_id}/students/{user_id}",
        "POST /api/v1/accounts/students/{student_id}/badge",
        "GET /api/v1/progress/class",
        "POST /api/v1/accounts/students",
        "GET /api/v1/study/class-sets/{set_id}/results.csv",
        "PATCH /api/v1/study/decks/{deck_id}/cards/{card_id}",
        "GET /vault/documents/{pk}/pages/{number}/",
        "GET /vault/passages/{chunk_pk}/",
        "GET /api/v1/vault/chunks/{chunk_id}",
        "GET /api/v1/vault/documents/{document_id}/file",
        "GET /api/v1/vault/documents/{document_id}/pages/{number}.png",
    ):
        assert expected in tried  # the walk reached them


def test_the_admin_pages_of_teachers_show_no_other_teachers_students(school, rf):
    """The Django admin's models every teacher manages (badges): a row of another teacher's
    student answers as a row that does not exist, and no list names them."""
    ours, theirs = school
    client = client_for(ours.teacher)
    asking = rf.get("/admin/")
    asking.user = ours.teacher
    tried = 0
    for model, model_admin in django_admin.site._registry.items():
        if not model_admin.has_view_permission(asking):
            continue
        name = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        listed = client.get(reverse(f"{name}_changelist"))
        assert listed.status_code == 200 and theirs.student.username not in listed.text, name
        if "user" not in {field.name for field in model._meta.fields}:
            continue  # the school's own rows (badge definitions)
        for pk in model.objects.filter(user=theirs.student).values_list("pk", flat=True):
            for page in ("change", "history", "delete"):
                got = client.get(reverse(f"{name}_{page}", args=[pk]))
                missing = client.get(reverse(f"{name}_{page}", args=[MISSING]))
                assert (got.status_code, got.url) == (missing.status_code, missing.url)
                tried += 1
    assert tried  # the other student's badges were tried


@pytest.mark.parametrize("path", sorted(PAGE_QUERIES))
def test_a_page_asked_for_another_teachers_class_shows_nothing_of_it(school, path):
    client = client_for(school[0].teacher)
    theirs = school[1].school_class
    got = client.get(f"{path}?{PAGE_QUERIES[path]}={theirs.pk}")
    expected = client.get(f"{path}?{PAGE_QUERIES[path]}={MISSING}")
    assert got.status_code == expected.status_code
    assert theirs.name not in got.text and school[1].student.username not in got.text


def test_a_class_page_shows_only_its_own_students_and_batches(school):
    ours, _ = school
    other = make_class(ours.teacher, name="Tess-8a")
    batch, [(student, _)] = rosters.create_students(other, ["Bea Berg"], by=ours.teacher)
    client = client_for(ours.teacher)
    here = f"/classes/{ours.school_class.pk}"

    assert client.get(f"/classes/{other.pk}/batches/{batch.pk}/").status_code == 200
    assert client.get(f"{here}/batches/{batch.pk}/").status_code == 404
    assert client.post(f"{here}/students/{student.pk}/card/").status_code == 404
    assert student.username not in client.get(f"{here}/").text


def test_another_teachers_student_is_not_added_by_name(school):
    ours, theirs = school
    client = client_for(ours.teacher)
    api = f"/api/v1/classes/{ours.school_class.pk}/enrolments"
    for name in (theirs.student.username, "nobody-by-that-name"):
        response = client.post(api, {"usernames": [name]}, content_type=JSON)
        assert response.json() == {"enrolled": [], "not_found": [name]}
        client.post(f"/classes/{ours.school_class.pk}/enrolments/", {"usernames": name})
    assert not theirs.student.enrolments.filter(school_class=ours.school_class).exists()


def test_a_co_teacher_reaches_the_class_but_not_the_other_teachers(school):
    ours, theirs = school
    client = client_for(co_teacher("cora", ours))
    assert client.get(f"/classes/{ours.school_class.pk}/").status_code == 200
    assert client.get(f"/api/v1/study/class-sets/{ours.sets['quiz'].pk}/results").status_code == 200
    assert client.get(f"/classes/{theirs.school_class.pk}/").status_code == 404
    assert client.get(f"/api/v1/study/class-sets/{theirs.sets['quiz'].pk}").status_code == 404


def test_only_the_owner_renames_deletes_and_adds_teachers_to_a_class(school):
    ours, _ = school
    client = client_for(co_teacher("cora", ours))
    page, api = f"/classes/{ours.school_class.pk}", f"/api/v1/classes/{ours.school_class.pk}"

    assert "Delete the class" not in client.get(f"{page}/").text
    refused = [
        client.post(f"{page}/rename/", {"name": "Renamed"}),
        client.post(f"{page}/teachers/", {"username": "otto"}),
        client.post(f"{page}/delete/"),
        client.patch(api, {"name": "Renamed"}, content_type=JSON),
        client.post(f"{api}/teachers", {"username": "otto"}, content_type=JSON),
        client.delete(api),
    ]
    assert [response.status_code for response in refused] == [403] * 6
    assert refused[3].json() == {
        "detail": "Only the teacher who made this class (or the admin) can do that."
    }
    ours.school_class.refresh_from_db()
    assert ours.school_class.name == "Tess-7b" and ours.school_class.teachers.count() == 2


# Committing without serialized rollback, like the door's test before it (tests/test_door.py).
@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_no_teacher_opens_the_chat_socket_of_anyone_elses_thread():
    ours = await database_sync_to_async(side)("tess", "7b", "Alice Lane")
    theirs = await database_sync_to_async(side)("otto", "9c", "Sam Stone")
    ada = await database_sync_to_async(admin)()
    for person, thread in (
        (ours.teacher, theirs.thread),
        (ours.teacher, ours.thread),  # her own student's chat is the student's alone
        (ada, theirs.thread),
    ):
        socket = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/chat/{thread.pk}/")
        socket.scope["user"] = person
        connected, _ = await socket.connect(timeout=scaled(5))
        assert not connected
    socket = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/chat/{ours.thread.pk}/")
    socket.scope["user"] = ours.student
    connected, _ = await socket.connect(timeout=scaled(5))
    assert connected  # the socket itself works for its owner
    await socket.disconnect()
