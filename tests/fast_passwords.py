"""The app's settings with the fast password hasher the unit tests use (conftest.py), for a
live app whose API fuzzing makes classes of up to 200 students: the real hasher spends a
quarter of a second on each password, by design."""

from cognivault_site.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
