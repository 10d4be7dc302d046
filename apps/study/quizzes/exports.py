"""A quiz as a file: Markdown or PDF to read and print (the questions first, the answers with
explanations after), and Moodle XML, GIFT or a QTI 2.1 package for another tool's question
bank (docs/study-hub.md#exchange). Pages and the API read `FORMATS`."""

from collections.abc import Callable

from django.template.loader import render_to_string

from apps.study import pdf
from apps.study.quizzes import gift, moodle_xml, qti
from apps.study.quizzes.bank import Bank, Item, exchangeable
from apps.study.quizzes.models import Question, Quiz
from apps.study.sources import sources_for_each

LETTERS = "ABCDEFGHIJ"  # one per option, up to Question.MAX_OPTIONS
PASSAGE_CHARACTERS = 1000  # of a source passage, in an exchange file


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
        # One paragraph: an explanation cut from a PDF keeps that page's line breaks.
        document.line(" ".join(question.explanation.split()), muted=True)
    return document.output()


def _rows(quiz: Quiz) -> list[tuple[Question, list[tuple[str, str]]]]:
    return [
        (question, list(zip(LETTERS, question.options, strict=False)))
        for question in quiz.questions.all()
    ]


def bank_of(quiz: Quiz) -> Bank:
    """The quiz as the exchange formats carry it, each question with the first passage it cites
    that its owner can still open."""
    questions = list(quiz.questions.all())
    sources = sources_for_each(quiz.owner, [question.chunk_ids for question in questions])
    items = []
    for question, chunks in zip(questions, sources, strict=True):
        item = Item(
            question.kind,
            exchangeable(question.text),
            [exchangeable(option) for option in question.options],
            question.correct_index,
            exchangeable(question.explanation),
            list(question.pictures),
        )
        if chunks:
            page = f", p. {chunks[0].page}" if chunks[0].page else ""
            item.source = exchangeable(f"{chunks[0].document.filename}{page}")
            item.passage = exchangeable(chunks[0].text[:PASSAGE_CHARACTERS])
        items.append(item)
    return Bank(exchangeable(quiz.title), items)


# Each format: (content type, how a quiz is made into it).
FORMATS: dict[str, tuple[str, Callable[[Quiz], str | bytes]]] = {
    "md": ("text/markdown; charset=utf-8", as_markdown),
    "pdf": ("application/pdf", as_pdf),
    "xml": ("application/xml", lambda quiz: moodle_xml.write(bank_of(quiz))),
    "gift": ("text/plain; charset=utf-8", lambda quiz: gift.write(bank_of(quiz))),
    "zip": ("application/zip", lambda quiz: qti.write(bank_of(quiz))),
}
