"""The right answer can be anywhere: a quiz's options are shuffled when it is made, the model's
and the ones cut from the text alike, seeded by the quiz and stored, so play, review and
exports show the same order; over 20 questions no letter holds more than half the answers."""

import random
import re
from collections import Counter

import pytest

from apps.study.quizzes.generation import QuestionItem, create_quiz, place_answers
from apps.study.quizzes.models import Quiz
from apps.study.tests.helpers import make_studied_document, mcq, true_false

pytestmark = pytest.mark.django_db


def letters(quiz: Quiz) -> Counter:
    return Counter(question.correct_index for question in quiz.questions.all())


def test_a_model_that_always_answers_b_gets_its_answers_spread(alice, model):
    make_studied_document(alice)
    model.answer({"questions": [mcq(i) for i in range(20)]})  # every answer is option B

    quiz = create_quiz(alice, num_questions=20, difficulty="beginner", types=["mcq"])

    questions = list(quiz.questions.all())
    assert len(questions) == 20
    assert max(letters(quiz).values()) <= 10 and len(letters(quiz)) >= 3
    for question in questions:
        assert question.correct_option == "Mitochondrion"
        assert sorted(question.options) == sorted(mcq()["options"])


def test_a_quiz_cut_from_the_text_spreads_its_answers_too(alice, alice_client, notes):
    quiz = Quiz.objects.get(pk=notes.make(alice_client, "quizzes", num_questions=10))
    choices = [q for q in quiz.questions.all() if q.kind == "mcq"]
    assert len(choices) >= 4
    assert max(Counter(q.correct_index for q in choices).values()) <= len(choices) / 2
    assert all(q.correct_option in q.explanation for q in choices)


def test_the_order_is_seeded_by_the_quiz_and_the_same_each_time():
    items = [QuestionItem.model_validate(mcq(i)) for i in range(8)]
    first = place_answers(items, random.Random(7))
    assert first == place_answers(items, random.Random(7))
    assert first != place_answers(items, random.Random(8))


def test_no_letter_holds_more_than_half_of_20_answers_whatever_the_seed():
    items = [QuestionItem.model_validate(mcq(i)) for i in range(14)]
    items += [QuestionItem.model_validate(true_false(i)) for i in range(6)]  # all "True": A
    for seed in range(200):
        placed = place_answers(items, random.Random(seed))
        assert max(Counter(correct for _, correct in placed).values()) <= 10


def test_true_false_keeps_true_before_false():
    items = [QuestionItem.model_validate(true_false(i, correct_index=i % 2)) for i in range(4)]
    placed = place_answers(items, random.Random(1))
    assert [options for options, _ in placed] == [["True", "False"]] * 4
    assert [correct for _, correct in placed] == [0, 1, 0, 1]


def test_the_export_prints_the_stored_order(alice, alice_client, model):
    make_studied_document(alice)
    model.answer({"questions": [mcq(i) for i in range(5)]})
    quiz = create_quiz(alice, num_questions=5, difficulty="beginner", types=["mcq"])

    markdown = alice_client.get(f"/study/quizzes/{quiz.pk}/export.md").content.decode()

    sections = re.split(r"^## \d+\. ", markdown, flags=re.MULTILINE)[1:]
    assert len(sections) == 5
    for section, question in zip(sections, quiz.questions.all(), strict=True):
        listed = re.findall(r"^- [A-D]\) (.+)$", section, flags=re.MULTILINE)
        assert listed == question.options
    assert len({tuple(q.options) for q in quiz.questions.all()}) > 1


def test_no_letter_holds_more_than_half_of_the_multiple_choice_answers_whatever_the_seed():
    items = [QuestionItem.model_validate(mcq(i)) for i in range(5)]
    items += [QuestionItem.model_validate(true_false(i)) for i in range(5)]  # all "True": A
    for seed in range(200):
        placed = place_answers(items, random.Random(seed))
        choices = Counter(
            correct for (_, correct), item in zip(placed, items, strict=True) if item.type == "mcq"
        )
        assert max(choices.values()) <= 2, seed
