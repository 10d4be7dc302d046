"""A quiz as Markdown or PDF: the questions first, the answers with explanations after."""

from django.template.loader import render_to_string

from apps.study import pdf
from apps.study.quizzes.models import Question, Quiz


def as_markdown(quiz: Quiz) -> str:
    return render_to_string("study/quizzes/export.md", {"quiz": quiz, "questions": _rows(quiz)})


def as_pdf(quiz: Quiz) -> bytes:
    document = pdf.Document(quiz.title)
    document.line(
        f"{quiz.questions.count()} questions · {quiz.get_difficulty_display()}", muted=True
    )
    for number, (question, letters) in enumerate(_rows(quiz), start=1):
        document.heading(f"{number}. {question.text}", level=3)
        for letter, option in letters:
            document.line(f"{letter}) {option}")
    document.page_break()
    document.heading("Answers", level=2)
    for number, (question, letters) in enumerate(_rows(quiz), start=1):
        letter, option = letters[question.correct_index]
        document.line(f"{number}. {letter}) {option}", bold=True)
        document.line(question.explanation, muted=True)
    return document.output()


def _rows(quiz: Quiz) -> list[tuple[Question, list[tuple[str, str]]]]:
    return [
        (question, list(zip("ABCD", question.options, strict=False)))
        for question in quiz.questions.all()
    ]
