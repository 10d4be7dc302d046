"""A scripted model server for study tests, and alice's notes ingested to generate from."""

import pytest

from apps.study.tests.helpers import Notes, StudyModel


@pytest.fixture
def model(settings):
    yield from StudyModel().serve(settings, OLLAMA_RETRIES=0)


@pytest.fixture
def notes(alice, model, tmp_path, django_capture_on_commit_callbacks) -> Notes:
    return Notes(alice, tmp_path, django_capture_on_commit_callbacks)
