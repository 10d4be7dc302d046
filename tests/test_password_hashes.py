"""The site's password hashes: new ones Argon2id at OWASP's minimum cost, stored PBKDF2 ones
verified and replaced at the next login (docs/classroom.md#the-login-rush)."""

import argon2
import pytest
from django.contrib.auth.hashers import (
    Argon2PasswordHasher,
    PBKDF2PasswordHasher,
    check_password,
    make_password,
)

from cognivault_site import settings as site_settings
from tests.helpers.users import make_user


def test_a_new_password_is_argon2id_at_owasps_minimum_cost(settings):
    settings.PASSWORD_HASHERS = site_settings.PASSWORD_HASHERS  # not the suite's MD5

    made = make_password("tulip-7")

    algorithm, stored = made.split("$", 1)
    cost = argon2.extract_parameters("$" + stored)
    assert algorithm == "argon2" and cost.type is argon2.Type.ID
    assert (cost.memory_cost, cost.time_cost, cost.parallelism) == (19 * 1024, 2, 1)
    assert check_password("tulip-7", made) and not check_password("tulip-8", made)
    assert Argon2PasswordHasher().verify("tulip-7", made)  # Django's own reads it


@pytest.mark.django_db
def test_a_stored_pbkdf2_password_logs_in_and_is_argon2id_from_then_on(settings):
    settings.PASSWORD_HASHERS = site_settings.PASSWORD_HASHERS
    alice = make_user("alice")
    pbkdf2 = PBKDF2PasswordHasher()
    alice.password = pbkdf2.encode("tulip-7", pbkdf2.salt(), 1000)  # as stored before
    alice.save(update_fields=["password"])

    assert not alice.check_password("tulip-8")
    assert alice.password.startswith("pbkdf2_sha256$")  # a wrong password changes nothing
    assert alice.check_password("tulip-7")

    alice.refresh_from_db()
    assert alice.password.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$")
    assert alice.check_password("tulip-7")
