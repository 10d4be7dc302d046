"""A quiz's PDF as a teacher prints it: the title set left like the rest of the page, and the
answer key's explanations as sentences, not the line breaks of the PDF they were cut from."""

import itertools

import pymupdf
import pytest

from apps.study.models import Question, Quiz
from apps.study.quizzes.exports import as_pdf

pytestmark = pytest.mark.django_db

TITLE = "Quiz on Zellbiologie_Klasse7.pdf, Herz_Kreislauf.docx"


@pytest.fixture
def printed(alice) -> pymupdf.Document:
    quiz = Quiz.objects.create(
        owner=alice, title=TITLE, difficulty="intermediate", types=["mcq"], requested=1
    )
    Question.objects.create(
        quiz=quiz, position=0, kind="mcq", text="Alle Lebewesen bestehen aus vielen _____.",
        options=["Zellen", "Organellen", "Einheiten", "Chromatiden"], correct_index=0,
        explanation="Alle Lebewesen bestehen aus einer oder aus vielen\nZellen.",
    )  # fmt: skip
    return pymupdf.open(stream=as_pdf(quiz), filetype="pdf")


def test_the_title_is_set_left_with_plain_spaces_between_its_words(printed):
    words = printed[0].get_text("words")  # (x0, y0, x1, y1, word, ...), in reading order
    first_line = [w for w in words if abs(w[1] - words[0][1]) < 1]
    gaps = [after[0] - before[2] for before, after in itertools.pairwise(first_line)]

    assert [w[4] for w in first_line][:2] == ["Quiz", "on"]
    assert max(gaps) < 10  # points: a space at 18 pt, not a line stretched to the margin


def test_an_explanation_wrapped_in_its_source_is_one_sentence_in_the_answer_key(printed):
    answers = printed[-1].get_text()

    assert "Alle Lebewesen bestehen aus einer oder aus vielen Zellen." in answers.splitlines()
