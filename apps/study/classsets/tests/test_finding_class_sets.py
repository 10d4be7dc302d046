"""Where a teacher hands out and a student finds what was handed out: what the tabs say."""

import pytest

from apps.study.classsets.tests.factories import class_passages, make_quiz
from apps.study.models import ClassSet
from tests.helpers.classes import class_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def quiz(tess):
    return make_quiz(tess, class_passages(tess))


def test_a_teacher_hands_out_a_quiz_from_its_page_as_the_class_sets_tab_says(tess_client, quiz):
    tab = tess_client.get("/study/class-sets/").content.decode()
    assert "from its page" in tab
    page = tess_client.get(f"/study/quizzes/{quiz.pk}/").content.decode()
    assert "Hand out to 7b" in page and 'action="/study/class-sets/hand-out/"' in page


def test_a_students_quiz_tab_points_to_the_quiz_waiting_from_their_teacher(alice_client, quiz):
    ClassSet.objects.hand_out(quiz.owner, quiz, class_of(quiz.owner))
    tab = alice_client.get("/study/quizzes/").content.decode()
    assert "No quizzes yet." not in tab
    assert "1 quiz from your teacher" in tab and 'href="/study/class-sets/"' in tab


def test_a_student_with_nothing_handed_out_has_no_quizzes_yet(alice_client, quiz):
    tab = alice_client.get("/study/quizzes/").content.decode()
    assert "No quizzes yet." in tab and "quiz from your teacher" not in tab


def test_a_class_filter_beyond_any_id_lists_the_sets_unfiltered(tess_client):
    page = tess_client.get("/study/class-sets/?class=" + "9" * 25)
    assert page.status_code == 200
