"""What tests import: people, documents, a pinned instant, the isolation check, and the real
services (Redis, daphne, Celery workers, chromium) of the end-to-end tests. Fixtures stay in
the conftest.py files and call these."""
