"""Who sends a request, read from its headers as Django and the API read them, and whether that
is someone signed in (cognivault_site/callers.py): what the door keys its refusals on and what
the web server asks before it takes a large body."""

import pytest

from apps.accounts.models import ApiToken
from cognivault_site.callers import Credentials, credentials, signed_in
from tests.helpers.users import client_for, make_user


def read(*headers: tuple[bytes, bytes]) -> Credentials | None:
    return credentials("POST", "/api/v1/vault/documents", list(headers))


def test_the_last_session_cookie_is_the_one_django_reads():
    assert read((b"cookie", b"sessionid=junk; sessionid=real")).session == "real"
    assert read((b"cookie", b"sessionid=junk"), (b"cookie", b"x=1; sessionid=real")).session == (
        "real"
    )
    assert read((b"cookie", b'sessionid="real"')).session == "real"


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER", "bEARer"])
def test_the_token_is_read_in_every_case_of_the_scheme(scheme):
    assert read((b"authorization", f"{scheme} cv_token".encode())) == Credentials("", "cv_token")


@pytest.mark.parametrize(
    "headers",
    [
        [],
        [(b"cookie", b"csrftoken=abc")],
        [(b"cookie", b"sessionid=")],
        [(b"authorization", b"")],
        [(b"authorization", b"Basic dXNlcjpwYXNz")],
        [(b"authorization", b"Token cv_token")],
    ],
)
def test_without_a_session_cookie_or_a_bearer_token_there_is_no_caller(headers):
    assert read(*headers) is None


@pytest.mark.django_db
def test_a_signed_in_session_and_a_live_token_are_signed_in():
    alice = make_user("alice")
    session = client_for(alice).cookies["sessionid"].value
    _, token = ApiToken.objects.issue(alice, "laptop")

    assert signed_in(Credentials(session, ""))
    assert signed_in(Credentials("", token))
    assert signed_in(Credentials("junk", token))  # the API tries the token first


@pytest.mark.django_db
def test_a_made_up_ended_or_inactive_caller_is_not_signed_in():
    alice = make_user("alice")
    client = client_for(alice)
    session = client.cookies["sessionid"].value
    _, token = ApiToken.objects.issue(alice, "laptop")
    assert not signed_in(Credentials("made-up", "cv_made-up"))

    client.logout()
    alice.is_active = False
    alice.save()

    assert not signed_in(Credentials(session, ""))
    assert not signed_in(Credentials("", token))


@pytest.mark.django_db
def test_a_session_from_before_a_password_change_is_not_signed_in():
    alice = make_user("alice")
    session = client_for(alice).cookies["sessionid"].value
    alice.set_password("a-new-passphrase-2026")
    alice.save()

    assert not signed_in(Credentials(session, ""))
