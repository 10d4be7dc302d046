"""A quiz whose questions' source changed: the review shows each with the passage that answers
it now, and refreshing touches only those questions, keeping every score."""

import pytest

from apps.study.quizzes import stale as quizzes_stale
from apps.study.quizzes.models import Quiz
from apps.study.tests.helpers import CELL_NOTES

pytestmark = pytest.mark.django_db

EDITED = CELL_NOTES.replace("Ribosomen bauen", "Ribosomen synthetisieren")


def test_refreshing_a_quiz_changes_only_its_changed_questions_and_keeps_the_score(
    alice_client, notes
):
    quiz = Quiz.objects.get(pk=notes.make(alice_client, "quizzes", num_questions=10))
    attempt, _ = quiz.submit([q.correct_index for q in quiz.questions.all()])
    notes.edit("cells.md", EDITED)
    changed = {question.pk for question in quizzes_stale.stale_questions(quiz)}
    assert changed and len(changed) < quiz.questions.count()
    review = alice_client.get(f"/study/quizzes/{quiz.pk}/attempts/{attempt.pk}/").content.decode()
    assert review.count('class="stale-item"') == len(changed)
    assert "The passage that answers it now (cells.md" in review
    before = {q.pk: (q.text, q.options, q.chunk_ids) for q in quiz.questions.all()}

    done = alice_client.post(f"/api/v1/study/quizzes/{quiz.pk}/refresh").json()
    assert done == {"refreshed": len(changed), "stale": 0}
    for question in quiz.questions.all():
        if question.pk not in changed:
            assert (question.text, question.options, question.chunk_ids) == before[question.pk]
        # Cut again is a new version of the question; pointed to the new passage is not.
        cut_again = (question.text, question.options) != before[question.pk][:2]
        assert question.version == (2 if cut_again else 1)
    attempt.refresh_from_db()
    assert attempt.percent == 100
    assert attempt.on_old_version == any(q.version > 1 for q in quiz.questions.all())


def test_bob_can_neither_see_nor_refresh_alices_changed_questions(alice_client, bob_client, notes):
    quiz = Quiz.objects.get(pk=notes.make(alice_client, "quizzes", num_questions=10))
    attempt, _ = quiz.submit([q.correct_index for q in quiz.questions.all()])
    notes.edit("cells.md", EDITED)
    changed = len(quizzes_stale.stale_questions(quiz))
    review = f"/study/quizzes/{quiz.pk}/attempts/{attempt.pk}/"
    assert bob_client.get(review).status_code == 404
    assert bob_client.get(f"/api/v1/study/quizzes/{quiz.pk}").status_code == 404
    assert bob_client.post(f"/study/stale/quiz/{quiz.pk}/refresh/").status_code == 404
    assert bob_client.post(f"/api/v1/study/quizzes/{quiz.pk}/refresh").status_code == 404
    assert bob_client.get("/api/v1/study/stale").json()["total"] == 0
    assert len(quizzes_stale.stale_questions(quiz)) == changed


def test_refreshing_a_quiz_from_a_page_goes_back_to_the_quiz_list(alice_client, notes):
    quiz = Quiz.objects.get(pk=notes.make(alice_client, "quizzes", num_questions=10))
    notes.edit("cells.md", EDITED)
    response = alice_client.post(f"/study/stale/quiz/{quiz.pk}/refresh/")
    assert response.status_code == 302 and response["Location"] == "/study/quizzes/"
