"""The classes' tests' people besides tess, alice and bob: tom, another teacher, and the
school's admin."""

import pytest

from apps.accounts.models import User
from tests.helpers.users import PASSWORD, make_user


@pytest.fixture
def tom(db) -> User:
    return make_user("tom", teacher=True)


@pytest.fixture
def admin(db) -> User:
    return User.objects.create_superuser("head", password=PASSWORD)
