import json
import time

import pytest

from apps.llm import audit
from tests.helpers.documents import make_document

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _embedded(settings):
    settings.LLM_BACKEND = "embedded"
    settings.EMBEDDING_BACKEND = "embedded"


def record(settings, host: str, kind: str, detail: str = "", user_id: int | None = None) -> None:
    path = audit.record_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    entry = {
        "at": time.time(),
        "pid": 1,
        "role": "web",
        "host": host,
        "port": 443,
        "kind": kind,
        "detail": detail,
        "user_id": user_id,
    }
    with path.open("a") as handle:
        handle.write(json.dumps(entry) + "\n")


def test_the_sidebar_shows_zero_external_connections_in_green(alice_client):
    page = alice_client.get("/vault/").text

    assert 'id="egress-indicator"' in page
    assert "egress-ok" in page
    assert "0 external connections" in page


def test_the_sidebar_turns_red_when_an_external_connection_happened(alice_client, settings):
    record(settings, "192.168.1.5", "lan")
    record(settings, "203.0.113.9", "external")

    page = alice_client.get("/vault/").text

    assert "egress-alert" in page
    assert "1 external connection<" in page.replace("\n", "").replace("  ", "")


def test_the_sidebar_counts_a_connection_recorded_since_the_last_page(alice_client, settings):
    record(settings, "203.0.113.9", "external")
    assert "1 external connection<" in alice_client.get("/vault/").text.replace("\n", "").replace(
        "  ", ""
    )

    record(settings, "198.51.100.7", "external")

    assert "2 external connections" in alice_client.get("/vault/").text


def test_the_indicator_fragment_refreshes_on_its_own(alice_client, settings):
    record(settings, "203.0.113.9", "external")

    fragment = alice_client.get("/privacy/indicator/", HTTP_HX_REQUEST="true").text

    assert fragment.lstrip().startswith('<a id="egress-indicator"')
    assert "<html" not in fragment
    assert "egress-alert" in fragment


def test_the_privacy_page_lists_models_storage_and_connections_for_a_teacher(
    tess, tess_client, settings
):
    (settings.DATA_DIR / "uploads").mkdir()
    (settings.DATA_DIR / "uploads" / "a.pdf").write_bytes(b"x" * 2048)
    (settings.DATA_DIR / "chat" / "attachments").mkdir(parents=True)
    (settings.DATA_DIR / "mystery").mkdir()
    record(settings, "203.0.113.80", "url-import", "https://example.org/article", tess.pk)

    page = tess_client.get("/privacy/").text

    assert "SmolLM2-135M-Instruct" in page
    assert "no thinking mode" in page and "English only" in page
    assert "use-multilingual-v3" in page
    assert str(settings.DATA_DIR) in page
    assert settings.OLLAMA_HOST in page
    assert "The original files uploaded to the vault" in page
    assert "2.0\xa0KB" in page
    assert "Files and pictures attached to chat questions, recordings waiting" in page
    assert page.count("not described") == 1  # the unknown folder cannot hide
    assert "https://example.org/article" in page


def test_a_student_sees_their_own_figures_and_no_host_path_or_settings(
    alice, bob, alice_client, settings
):
    settings.OLLAMA_HOST = "http://gpu-box.school.lan:11434"
    (settings.DATA_DIR / "uploads").mkdir()
    (settings.DATA_DIR / "uploads" / "a.pdf").write_bytes(b"x" * 2048)
    make_document(alice, "mine.txt", size_bytes=3 * 1024)
    make_document(bob, "bobs.txt", size_bytes=50 * 1024)

    page = alice_client.get("/privacy/").text
    stats = alice_client.get("/api/v1/vault/stats").json()

    for shown in (page, str(stats)):
        assert "SmolLM2-135M-Instruct" in shown  # which model answers is everyone's business
        assert str(settings.DATA_DIR) not in shown
        assert "gpu-box" not in shown
        assert "LLM_BACKEND" not in shown and "EMBEDDING_BACKEND" not in shown
        assert "The original files uploaded to the vault" not in shown
    assert "3.0\xa0KB" in page
    assert stats["storage_bytes"] == 3 * 1024
    assert stats["data_dir"] is None and stats["storage"] is None
    assert set(stats["models"]) == {"chat", "embeddings", "speech"}


def test_a_teacher_sees_the_data_folder_and_the_model_settings_in_the_api(tess_client, settings):
    (settings.DATA_DIR / "uploads").mkdir()
    (settings.DATA_DIR / "uploads" / "a.pdf").write_bytes(b"x" * 2048)

    stats = tess_client.get("/api/v1/vault/stats").json()

    assert stats["data_dir"] == str(settings.DATA_DIR)
    assert {
        "path": "uploads/",
        "holds": "The original files uploaded to the vault",
        "bytes": 2048,
    } in (stats["storage"])
    assert stats["models"]["ollama"]["host"] == settings.OLLAMA_HOST
    assert stats["models"]["settings"]["LLM_BACKEND"] == "embedded"


def test_the_page_and_the_api_ask_the_model_server_once_between_rechecks(
    alice_client, tess_client, fake_ollama, settings
):
    settings.LLM_RECHECK_SECONDS = 3600

    for client in (alice_client, tess_client):
        assert client.get("/privacy/").status_code == 200
        assert client.get("/api/v1/vault/stats").status_code == 200

    assert [path for path, _ in fake_ollama.requests].count("/api/tags") == 1


def test_the_connection_list_is_a_live_fragment(alice_client, settings):
    record(settings, "203.0.113.9", "external")

    fragment = alice_client.get("/privacy/connections/", HTTP_HX_REQUEST="true").text

    assert 'id="connection-list"' in fragment
    assert "203.0.113.9:443" in fragment
    assert "<html" not in fragment


def test_a_teacher_sees_a_students_import_happened_but_not_its_address(
    alice, tess_client, settings
):
    record(settings, "203.0.113.7", "url-import", "https://notes.example/my-locker-4471", alice.pk)

    page = tess_client.get("/privacy/").text
    stats = tess_client.get("/api/v1/vault/stats").json()

    assert "203.0.113.7:443" in page and "my-locker-4471" not in page
    assert stats["connections"]["by_kind"] == {"url-import": 1}
    assert stats["connections"]["recent"][0]["detail"] == ""


def test_the_privacy_page_needs_a_login(client):
    assert client.get("/privacy/").status_code == 302


def test_vault_stats_count_only_what_the_asker_may_see(alice, bob, alice_client, settings):
    make_document(alice, "mine.txt")
    make_document(bob, "bobs.txt")
    make_document(bob, "class.txt", scope="class")
    record(settings, "203.0.113.9", "external")

    stats = alice_client.get("/api/v1/vault/stats").json()

    assert stats["documents"] == 2
    assert stats["chunks"] == 0
    assert stats["connections"]["external"] == 1
    assert stats["connections"]["recent"][0]["flagged"] is True
    assert stats["models"]["chat"]["backend"] == "embedded"


def test_vault_stats_need_authentication(client):
    assert client.get("/api/v1/vault/stats").status_code == 401


def test_health_includes_the_model_backends_for_a_teacher(tess_client):
    health = tess_client.get("/api/v1/health").json()

    assert health["models"]["chat"]["backend"] == "embedded"
    assert health["models"]["chat"]["limits"][:2] == ["no thinking mode", "English only"]
    assert health["models"]["embeddings"]["model"] == "use-multilingual-v3"
    assert "reachable" in health["models"]["ollama"]


def test_teachers_see_the_effective_prompts_and_students_do_not(
    tess_client, alice_client, settings
):
    custom = settings.DATA_DIR / "prompts" / "custom"
    custom.mkdir(parents=True)
    (custom / "tool_choice.md").write_text("Our own wording for {{ tools }}.")

    page = tess_client.get("/privacy/prompts/").text

    assert "Our own wording for" in page
    assert "customised" in page
    assert alice_client.get("/privacy/prompts/").status_code == 403


def test_bob_never_sees_the_address_alice_imported(alice, bob, bob_client, tess_client, settings):
    secret = "https://intranet.example/report?token=alices-secret"
    record(settings, "203.0.113.80", "url-import", secret, alice.pk)
    record(settings, "203.0.113.81", "url-import", "https://example.org/bobs", bob.pk)
    record(settings, "203.0.113.9", "external")

    page = bob_client.get("/privacy/").text
    fragment = bob_client.get("/privacy/connections/", HTTP_HX_REQUEST="true").text
    stats = bob_client.get("/api/v1/vault/stats").json()

    for shown in (page, fragment, str(stats)):
        assert "alices-secret" not in shown and "203.0.113.80" not in shown
        assert "https://example.org/bobs" in shown
        assert "203.0.113.9" in shown  # the app's own connections are everyone's business
    # Teachers see every connection; of alice's import, that it happened, not its address.
    seen_by_teacher = tess_client.get("/privacy/").text
    assert "203.0.113.80" in seen_by_teacher and "alices-secret" not in seen_by_teacher
