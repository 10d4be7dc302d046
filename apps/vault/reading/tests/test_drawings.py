"""The drawn pages on disk: kept within READER_CACHE_MB (the oldest go first), gone with their
document or its old version, drawn by the jobs worker and queued again when a worker starts."""

import pytest
from celery import current_app

from apps.vault import tasks
from apps.vault.reading import renderings
from apps.vault.reading.models import Rendering, reader_dir
from apps.vault.reading.tests.documents import drawn, read_in
from apps.vault.tests import files
from apps.vault.tests.helpers import upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def handout(alice, tmp_path):
    return read_in(alice, files.text_pdf(tmp_path / "handout.pdf"))


def draw_pages(document, user, *numbers) -> list[Rendering]:
    for number in numbers:
        renderings.requested(document, number, user)
    return [drawn(document, number) for number in numbers]


def test_the_oldest_drawings_go_once_all_of_them_pass_the_room(handout, alice, settings):
    first, second, third = draw_pages(handout, alice, 1, 2, 3)
    Rendering.objects.update(size_bytes=400 * 1024)  # 1.2 MB in all
    settings.READER_CACHE_MB = 1

    assert renderings.evict() == 1
    assert list(Rendering.objects.values_list("page", flat=True)) == [2, 3]
    assert not first.image_path.exists() and not first.data_path.exists()
    assert second.image_path.exists() and third.image_path.exists()


def test_the_page_just_drawn_stays_even_alone_past_the_room(handout, alice, settings):
    settings.READER_CACHE_MB = 0
    first, second = draw_pages(handout, alice, 1, 2)

    assert list(Rendering.objects.values_list("page", flat=True)) == [2]
    assert not first.image_path.exists() and second.image_path.exists()


def test_deleting_a_document_deletes_its_drawings(
    handout, alice, django_capture_on_commit_callbacks
):
    draw_pages(handout, alice, 1)
    assert reader_dir(handout.pk).is_dir()

    with django_capture_on_commit_callbacks(execute=True):
        handout.delete_with_file()

    assert not reader_dir(handout.pk).exists()
    assert not Rendering.objects.exists()


def test_a_new_version_of_the_file_is_drawn_anew_and_the_old_drawings_go(handout, alice, tmp_path):
    [old] = draw_pages(handout, alice, 1)
    changed = upload(alice, files.text_pdf(tmp_path / "handout.pdf", words="Neue Fassung. "))

    [new] = draw_pages(changed, alice, 1)

    assert new.pk != old.pk and new.sha256 == changed.sha256
    assert list(Rendering.objects.all()) == [new]
    assert not old.image_path.exists()


def test_pages_are_drawn_by_the_jobs_worker():
    route = current_app.amqp.router.route({}, renderings.DRAW_TASK)

    assert route["queue"].name == "celery"
    assert tasks.draw_page.name == renderings.DRAW_TASK


def test_a_starting_worker_queues_again_the_pages_nobody_took(handout, alice, monkeypatch):
    queued = []
    monkeypatch.setattr(tasks.draw_page, "delay", queued.append)
    waiting = renderings.requested(handout, 1, alice)
    taken = renderings.requested(handout, 2, alice)
    Rendering.objects.claim(taken.pk, "jobs@dead")

    interrupted, again = tasks.recover_drawings("jobs@dead")

    assert (interrupted, again, queued) == ([taken.pk], [waiting.pk], [waiting.pk])


def test_a_drawing_whose_files_went_is_drawn_again(handout, alice, alice_client):
    [gone] = draw_pages(handout, alice, 1)
    gone.data_path.unlink()

    again = alice_client.get(f"/api/v1/vault/documents/{handout.pk}/pages/1.png")

    assert again.status_code == 202
    assert Rendering.objects.get().pk != gone.pk
