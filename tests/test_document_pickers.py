"""The document pickers (Study Hub scope, search scope, the chat composer's files) are rendered
once per distinct list and reused: what they show is still always the vault as it is now."""

import pytest

from apps.chat.models import Thread
from apps.study.forms import ScopeForm
from tests.helpers.documents import make_document
from tests.helpers.services import free_port

pytestmark = pytest.mark.django_db

PAGES = ["/study/quizzes/", "/study/decks/", "/vault/search/"]


@pytest.mark.parametrize("page", PAGES)
def test_a_picker_shows_the_vault_as_it_is_now(alice, alice_client, page):
    kept = make_document(alice, "zellen.txt", status="done")
    gone = make_document(alice, "alt.txt", status="done", sha256="1" * 64)
    alice_client.get(page)

    gone.delete()
    make_document(alice, "neu.txt", status="done", sha256="2" * 64)
    kept.filename = "zellbiologie.txt"
    kept.save()
    html = alice_client.get(page).content.decode()

    assert "neu.txt" in html and "zellbiologie.txt" in html
    assert "alt.txt" not in html and "zellen.txt" not in html


def test_the_chat_composer_lists_the_files_as_they_are_now(alice, alice_client):
    thread = Thread.objects.create(owner=alice)
    make_document(alice, "zellen.txt")
    alice_client.get(f"/chat/{thread.pk}/")
    added = make_document(alice, "neu.txt", sha256="2" * 64)

    html = alice_client.get(f"/chat/{thread.pk}/").content.decode()

    assert f'<option value="{added.pk}">neu.txt</option>' in html
    assert 'name="document_ids"' in html


def test_a_picker_never_shows_one_person_another_persons_list(alice, bob, alice_client, client):
    make_document(alice, "alices-diary.txt")
    alice_client.get("/study/quizzes/")
    client.force_login(bob)
    assert "alices-diary.txt" not in client.get("/study/quizzes/").content.decode()


def test_the_chosen_documents_stay_checked_when_the_form_comes_back(alice):
    chosen = make_document(alice, "zellen.txt")
    unbound = str(ScopeForm(user=alice)["documents"])
    bound = str(ScopeForm({"documents": [chosen.pk]}, user=alice)["documents"])
    assert "checked" not in unbound and "checked" in bound


def test_a_picker_is_drawn_without_its_cache_while_redis_is_down(alice, alice_client, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "cognivault_site.cache.SharedPoolRedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",  # nothing listens there
        }
    }
    make_document(alice, "zellen.txt")
    response = alice_client.get("/study/quizzes/")
    assert response.status_code == 200 and "zellen.txt" in response.content.decode()
