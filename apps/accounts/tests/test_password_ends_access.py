"""Tokens, sessions and websockets die with the password: whoever knew the old one is out."""

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from apps.accounts import sessions
from apps.accounts.models import ApiToken
from apps.chat.models import Thread
from cognivault_site.asgi import application
from tests.helpers.slowness import scaled
from tests.helpers.users import PASSWORD


class LanBrowser(Client):
    """A browser on another machine: it reaches the app over HTTPS (plain HTTP is redirected)."""

    def generic(self, *args, **kwargs):
        return super().generic(*args, **{**kwargs, "secure": True})


def logged_in(username: str, address: str = "10.0.0.7", browser: str = "Firefox") -> Client:
    """A browser on another machine that logged in through the login page."""
    client = LanBrowser(REMOTE_ADDR=address, HTTP_USER_AGENT=browser)
    response = client.post("/accounts/login/", {"username": username, "password": PASSWORD})
    assert response.status_code == 302
    return client


def api_status(token: str) -> int:
    return LanBrowser().get("/api/v1/auth/tokens", HTTP_AUTHORIZATION=f"Bearer {token}").status_code


@pytest.mark.django_db
def test_an_old_token_gets_401_after_the_teacher_resets_the_password(
    tess_class, alice, tess_client
):
    _, token = ApiToken.objects.issue(alice, "script")
    assert api_status(token) == 200

    response = tess_client.post(f"/classes/{tess_class.pk}/students/{alice.pk}/reset/")

    assert response.status_code == 200
    assert api_status(token) == 401
    assert not ApiToken.objects.filter(user=alice).exists()


@pytest.mark.django_db
def test_an_old_session_is_logged_out_after_a_reset(tess_class, alice, tess_client):
    laptop = logged_in("alice")
    assert laptop.get("/accounts/settings/").status_code == 200

    tess_client.post(f"/classes/{tess_class.pk}/students/{alice.pk}/reset/")

    assert sessions.sessions_by_user([alice.pk]) == {}  # gone, not merely out of date
    response = laptop.get("/accounts/settings/")
    assert response.status_code == 302 and response.url.startswith("/accounts/login/")


@pytest.mark.django_db
def test_changing_ones_own_password_ends_tokens_and_other_sessions_but_not_this_one(alice):
    _, token = ApiToken.objects.issue(alice, "script")
    phone = logged_in("alice", browser="Phone")
    laptop = logged_in("alice", browser="Laptop")

    response = laptop.post(
        "/accounts/password/",
        {
            "old_password": PASSWORD,
            "new_password1": "n3w-and-long-pw",
            "new_password2": "n3w-and-long-pw",
        },
    )

    assert response.status_code == 302
    assert laptop.get("/accounts/settings/").status_code == 200
    assert phone.get("/accounts/settings/").status_code == 302
    assert api_status(token) == 401


@pytest.mark.django_db
def test_saving_an_account_without_a_new_password_keeps_its_tokens_and_sessions(alice):
    _, token = ApiToken.objects.issue(alice, "script")
    laptop = logged_in("alice")

    alice.first_name = "Alice"
    alice.save()

    assert api_status(token) == 200
    assert laptop.get("/accounts/settings/").status_code == 200


@pytest.mark.django_db
def test_the_classroom_lists_a_students_tokens_and_sessions(tess_class, alice, tess_client):
    ApiToken.objects.issue(alice, "homework script")
    laptop = logged_in("alice", address="10.0.0.42", browser="Mozilla/5.0 TestBrowser")

    page = tess_client.get(f"/classes/{tess_class.pk}/").text

    row = page.split(f'id="student-{alice.pk}"')[1].split("</tr>")[0]
    assert "homework script" in row
    assert "10.0.0.42" in row and "TestBrowser" in row
    # Listed by a digest, never by the key itself (it would let the reader act as alice).
    assert laptop.cookies["sessionid"].value not in page
    assert sessions.ref_for(laptop.cookies["sessionid"].value) in row


@pytest.mark.django_db
def test_the_teacher_revokes_one_token_and_one_session(tess_class, alice, tess_client):
    token, raw = ApiToken.objects.issue(alice, "script")
    _, other = ApiToken.objects.issue(alice, "other")
    phone, laptop = logged_in("alice", browser="Phone"), logged_in("alice", browser="Laptop")
    phone_ref = next(
        info.ref
        for info in sessions.sessions_by_user([alice.pk])[alice.pk]
        if info.browser == "Phone"
    )

    tess_client.post(f"/classes/{tess_class.pk}/students/{alice.pk}/tokens/{token.pk}/revoke/")
    tess_client.post(
        f"/classes/{tess_class.pk}/students/{alice.pk}/sessions/end/", {"session": phone_ref}
    )

    assert api_status(raw) == 401 and api_status(other) == 200
    assert phone.get("/accounts/settings/").status_code == 302
    assert laptop.get("/accounts/settings/").status_code == 200


@pytest.mark.django_db
def test_students_cannot_revoke_anything(tess_class, alice, bob, bob_client):
    token, raw = ApiToken.objects.issue(alice, "script")
    laptop = logged_in("alice")

    assert (
        bob_client.post(
            f"/classes/{tess_class.pk}/students/{alice.pk}/tokens/{token.pk}/revoke/"
        ).status_code
        == 403
    )
    assert (
        bob_client.post(f"/classes/{tess_class.pk}/students/{alice.pk}/sessions/end/").status_code
        == 403
    )
    assert api_status(raw) == 200
    assert laptop.get("/accounts/settings/").status_code == 200


@pytest.mark.django_db
def test_a_teacher_cannot_revoke_another_students_token_through_a_wrong_url(
    tess_class, alice, bob, tess_client
):
    token, raw = ApiToken.objects.issue(alice, "script")
    response = tess_client.post(
        f"/classes/{tess_class.pk}/students/{bob.pk}/tokens/{token.pk}/revoke/"
    )
    assert response.status_code == 404
    assert api_status(raw) == 200


# --- Open websockets ---------------------------------------------------------------------------


async def open_chat_socket(client: Client, thread_id: int) -> WebsocketCommunicator:
    """The chat websocket through the whole ASGI stack, authenticated by the session cookie."""
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    socket = WebsocketCommunicator(
        application,
        f"/ws/chat/{thread_id}/",
        headers=[(b"cookie", cookie), (b"origin", b"http://localhost"), (b"host", b"localhost")],
    )
    connected, _ = await socket.connect(timeout=scaled(5))
    assert connected
    await socket.receive_from(timeout=scaled(5))  # the conversation as it is
    return socket


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
async def test_an_open_socket_is_closed_when_the_password_is_reset(alice):
    thread = await database_sync_to_async(Thread.objects.create)(owner=alice)
    laptop = await database_sync_to_async(logged_in)("alice")
    socket = await open_chat_socket(laptop, thread.pk)

    await database_sync_to_async(alice.reset_password)()

    assert (await socket.receive_output(timeout=5))["type"] == "websocket.close"


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
async def test_ending_one_session_closes_only_that_sessions_socket(alice):
    thread = await database_sync_to_async(Thread.objects.create)(owner=alice)
    phone = await database_sync_to_async(logged_in)("alice", browser="Phone")
    laptop = await database_sync_to_async(logged_in)("alice", browser="Laptop")
    phone_socket = await open_chat_socket(phone, thread.pk)
    laptop_socket = await open_chat_socket(laptop, thread.pk)
    ref = sessions.ref_for(phone.cookies["sessionid"].value)

    await database_sync_to_async(sessions.end_sessions)(alice, {ref})

    assert (await phone_socket.receive_output(timeout=5))["type"] == "websocket.close"
    assert await laptop_socket.receive_nothing(timeout=0.5)
    await laptop_socket.disconnect()
