"""A password hasher that counts its work, to show which paths hash no password."""

from django.contrib.auth.hashers import MD5PasswordHasher


class CountingHasher(MD5PasswordHasher):
    calls = 0  # every hash, made or checked (verify() hashes through encode())

    def encode(self, password, salt):
        CountingHasher.calls += 1
        return super().encode(password, salt)


def counting_hashes(settings) -> type[CountingHasher]:
    """Install the counting hasher (the suite's MD5 hashes stay readable) from zero."""
    settings.PASSWORD_HASHERS = ["apps.accounts.tests.counting_hasher.CountingHasher"]
    CountingHasher.calls = 0
    return CountingHasher
