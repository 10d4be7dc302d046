import pytest

pytestmark = pytest.mark.django_db

SECTIONS = {"chat": "/chat/", "vault": "/vault/", "study": "/study/", "progress": "/progress/"}


def test_pages_need_a_login(client):
    for url in [*SECTIONS.values(), "/accounts/settings/", "/"]:
        response = client.get(url)
        assert response.status_code == 302
        assert response.url.startswith("/accounts/login/")


def test_an_htmx_request_after_the_session_ended_sends_the_whole_page_to_the_login(client):
    # htmx would follow a plain redirect and swap the login page into the fragment's place.
    response = client.post(
        "/vault/categories/",
        {"name": "Chemistry"},
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL="http://testserver/vault/?page=2",
    )
    assert response.status_code == 200
    assert response["HX-Redirect"] == "/accounts/login/?next=/vault/%3Fpage%3D2"
    assert not response.content


@pytest.mark.parametrize("section", SECTIONS)
def test_each_section_highlights_itself_in_the_sidebar(alice_client, section):
    page = alice_client.get(SECTIONS[section]).text
    assert page.count('aria-current="page"') == 1
    current = page.split('aria-current="page"')[0].rsplit("<a", 1)[1]
    assert SECTIONS[section] in current


def test_home_returns_to_the_last_section(alice_client):
    assert alice_client.get("/").url == "/vault/"
    alice_client.get("/study/")
    assert alice_client.get("/").url == "/study/"


def test_every_page_sends_the_csrf_token_with_htmx(alice_client):
    page = alice_client.get("/chat/").text
    assert 'hx-headers=\'{"X-CSRFToken": "' in page
    assert "htmx-2" in page


def test_an_empty_vault_tells_a_new_user_what_to_do_first(alice_client):
    assert "Your vault is empty" in alice_client.get("/chat/").text
    assert "Add documents first" in alice_client.get("/study/").text


def test_the_deploy_checks_pass_for_the_lan_profile(settings):
    from django.core.management import call_command

    settings.DEBUG = False
    call_command("check", "--deploy", "--fail-level", "WARNING")
