import pytest


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    """These tests create many people; a slow password hash only costs time here."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
