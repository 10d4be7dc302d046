import logging
import threading
from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection, transaction

from apps.progress import tracking
from apps.progress.badges import Metrics
from apps.progress.models import Event, MissedQuestion
from apps.vault.models import Category

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


def break_table(name: str) -> None:
    """The table is gone until the test's transaction rolls back. Renamed rather than dropped:
    PostgreSQL will not drop a table other tables' foreign keys point to."""
    with connection.cursor() as cursor:
        cursor.execute(f"ALTER TABLE {name} RENAME TO {name}_gone")


def test_a_tracking_failure_never_reaches_the_caller_nor_spoils_its_transaction(alice, caplog):
    with transaction.atomic():
        Category.objects.create(name="Before")
        break_table("progress_studysession")
        with caplog.at_level(logging.ERROR, logger="apps.progress.tracking"):
            assert tracking.record_message(alice, at=T0) == []
        # The caller carries on in the same transaction.
        Category.objects.create(name="After")
    assert set(Category.objects.values_list("name", flat=True)) == {"Before", "After"}
    assert "Could not record a message event" in caplog.text


def test_a_broken_evaluator_keeps_the_event(alice, caplog):
    break_table("progress_earnedbadge")
    with caplog.at_level(logging.ERROR, logger="apps.progress.tracking"):
        assert tracking.record_quiz(alice, score_percent=90, difficulty="beginner") == []
    assert Event.objects.filter(user=alice, kind="quiz").count() == 1
    assert "Could not evaluate badges" in caplog.text


@pytest.mark.parametrize(
    "call",
    [
        lambda u: tracking.record_quiz(u, score_percent="lots", difficulty="beginner"),
        lambda u: tracking.record_quiz(u, score_percent=None, difficulty=None),
        lambda u: tracking.record_quiz(u, score_percent=50, difficulty="x", questions_wrong=5),
        lambda u: tracking.record_message(u, at="yesterday"),
    ],
)
def test_bad_values_from_a_caller_are_logged_not_raised(alice, call):
    assert call(alice) == []


def test_a_nonsense_attachment_count_still_records_the_message(alice, midday):
    assert [b.badge.code for b in tracking.record_message(alice, attachments="many")] == [
        "first_question"
    ]
    assert Event.objects.get(user=alice).attachments == 0


def test_nobody_is_tracked_when_nobody_is_logged_in():
    assert tracking.record_message(AnonymousUser()) == []
    assert tracking.record_deck_created(None) == []
    assert not Event.objects.exists()


def test_scores_are_clamped_and_difficulty_normalised(alice):
    tracking.record_quiz(alice, score_percent=140, difficulty=" Advanced ")
    event = Event.objects.get(user=alice)
    assert (event.score_percent, event.difficulty) == (100.0, "advanced")


def test_missed_questions_keep_only_links_inside_the_site(alice, tess_class):
    tracking.record_quiz(
        alice,
        score_percent=50,
        difficulty="beginner",
        class_id=tess_class.pk,
        questions_wrong=[
            {
                "question": "What is ATP?",
                "source_label": "bio.pdf, p. 3",
                "source_url": "/vault/d/1/#p3",
            },
            {"question": "Evil?", "source_url": "javascript:alert(1)"},
            {"question": "Away?", "source_url": "//evil.example/x"},
            {"question": "Outside?", "source_url": "https://evil.example/"},
            {"question": "   "},
            "not a mapping",
        ],
    )
    stored = dict(MissedQuestion.objects.values_list("question", "source_url"))
    assert stored == {
        "What is ATP?": "/vault/d/1/#p3",
        "Evil?": "",
        "Away?": "",
        "Outside?": "",
    }


def test_a_quiz_of_ones_own_keeps_its_score_but_not_what_was_missed(alice, tess_class):
    missed = [{"question": "My locker code is 4471: true or false?"}]
    tracking.record_quiz(alice, score_percent=0, difficulty="beginner", questions_wrong=missed)
    tracking.record_quiz(
        alice, score_percent=0, difficulty="beginner", class_id=tess_class.pk, questions_wrong=[]
    )
    own, for_the_class = Event.objects.filter(user=alice).order_by("pk")
    assert (own.school_class, own.score_percent) == (None, 0.0)
    assert for_the_class.school_class == tess_class
    assert not MissedQuestion.objects.exists()


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_while_a_messages_badges_are_weighed_other_writers_go_on(alice, monkeypatch):
    """A class's answers are saved while each finished one's badges are weighed: the weighing
    reads, and must not hold the database's write lock while it does."""
    weighing, release = threading.Event(), threading.Event()
    weigh = Metrics.__getitem__

    def slow_weigh(self, metric):
        weighing.set()
        release.wait(10)
        return weigh(self, metric)

    def in_a_thread(work) -> threading.Thread:
        def run():
            try:
                work()
            finally:
                connection.close()

        thread = threading.Thread(target=run)
        thread.start()
        return thread

    monkeypatch.setattr(Metrics, "__getitem__", slow_weigh)
    recorder = in_a_thread(lambda: tracking.record_message(alice, at=T0))
    try:
        assert weighing.wait(10)
        writer = in_a_thread(lambda: Category.objects.create(name="Saved meanwhile"))
        writer.join(5)
        assert not writer.is_alive()
    finally:
        release.set()
        recorder.join(10)
    assert Category.objects.filter(name="Saved meanwhile").exists()
    assert Event.objects.filter(user=alice, kind=Event.Kind.MESSAGE).count() == 1
