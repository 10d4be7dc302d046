"""The app's settings for the live app the API fuzzing (tests/test_api_fuzzing.py) runs against.

- The fast password hasher the unit tests use (conftest.py): the fuzzing makes classes of up to
  200 students, and the real hasher spends a quarter of a second on each password, by design.
- Refusals given again at once: the fuzzing asks every route many times a minute and is refused
  with a 429 often; a second's wait for each (the door's default) was three quarters of its time.
  The refusals themselves, and the door's wait, are tested in tests/test_door.py.
"""

from cognivault_site.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
SLOW_REFUSAL_SECONDS = 0
