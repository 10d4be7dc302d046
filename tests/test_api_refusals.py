"""What Django refuses by itself under /api/, before or around an operation (a Host it does not
serve, a path or method no route has, a failed CSRF check, a crash), is JSON `{"detail": ...}`
with its status; pages keep their HTML (cognivault_site/errors.py)."""

import json

import pytest
from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.middleware.csrf import _get_failure_view
from django.test import RequestFactory

from cognivault_site import health

pytestmark = pytest.mark.django_db


def assert_json_refusal(response, status: int) -> str:
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    detail = json.loads(response.content)["detail"]
    assert detail.endswith(".") and len(detail.split()) >= 5  # a sentence, not a code
    return detail


def assert_page(response, status: int) -> None:
    assert response.status_code == status
    assert response["Content-Type"].startswith("text/html")


def test_a_host_the_server_does_not_answer_to_is_a_json_400_under_the_api(client):
    for url in ["/api/v1/health", "/api/v1/vault/documents", "/api/v1/nothing-here"]:
        response = client.get(url, HTTP_HOST="evil.example")
        assert "ALLOWED_HOSTS" in assert_json_refusal(response, 400)
    response = client.post(
        "/api/v1/auth/token", {}, content_type="application/json", HTTP_HOST="evil.example"
    )
    assert_json_refusal(response, 400)


def test_a_page_asked_for_under_a_host_the_server_does_not_answer_to_stays_an_html_400(client):
    assert_page(client.get("/accounts/login/", HTTP_HOST="evil.example"), 400)


def test_a_path_the_api_does_not_have_is_a_json_404_pointing_at_the_routes(alice_client):
    for url in ["/api/v1/nothing-here", "/api/v1/vault/documents/", "/api/v2/health"]:
        detail = assert_json_refusal(alice_client.get(url), 404)
        assert url in detail
        assert "/api/v1/docs" in detail
    assert_page(alice_client.get("/nothing-here/"), 404)


def test_a_method_a_route_does_not_take_is_a_json_405_naming_the_ones_it_does(alice_client):
    response = alice_client.put("/api/v1/chat/sessions", {}, content_type="application/json")
    assert response.status_code == 405
    assert sorted(response["Allow"].split(", ")) == ["GET", "POST"]
    assert "PUT" in response.json()["detail"]


@pytest.mark.parametrize(
    ("raised", "status"),
    [
        (SuspiciousOperation("a forged value"), 400),
        (PermissionDenied("internal reason"), 403),
        (RuntimeError("internal detail"), 500),
    ],
)
def test_what_an_operation_raises_past_ninja_is_json_without_its_inner_message(
    client, monkeypatch, raised, status
):
    def fail():
        raise raised

    monkeypatch.setattr(health, "report", fail)
    client.raise_request_exception = False
    detail = assert_json_refusal(client.get("/api/v1/health"), status)
    assert str(raised) not in detail


def test_a_failed_csrf_check_is_a_json_403_under_the_api_and_the_page_elsewhere(settings):
    failed = _get_failure_view()
    detail = assert_json_refusal(failed(RequestFactory().post("/api/v1/auth/tokens")), 403)
    assert "X-CSRFToken" in detail
    assert_page(failed(RequestFactory().post("/accounts/settings/"), reason="no token"), 403)


def test_a_student_refused_a_teachers_page_is_one_line_of_the_log(alice_client, tess_class, caplog):
    with caplog.at_level("WARNING", logger="django.request"):
        response = alice_client.get(f"/classes/{tess_class.pk}/")

    assert response.status_code == 403
    [record] = [r for r in caplog.records if r.name == "django.request"]
    assert record.getMessage() == f"Forbidden (Permission denied): /classes/{tess_class.pk}/"
    assert record.exc_info is None and "Traceback" not in caplog.text
