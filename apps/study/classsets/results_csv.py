"""A set's results as CSV, one table per file: the students (the default), every quiz attempt,
or the quiz's questions with one row per option. A cell that a spreadsheet would run as a
formula gets a leading apostrophe (names and questions are typed by people)."""

import csv
import io
import re

from django.utils.text import slugify

from apps.study.classsets.models import ClassSet
from apps.study.classsets.results import Results
from apps.study.flashcards.csv_files import protect_cell


def yes(value: bool) -> str:
    return "yes" if value else "no"


def blank(value) -> str:
    return "" if value is None else str(value)


def students(report: Results) -> list[list[str]]:
    rows = [
        [
            "username",
            "name",
            "started",
            "finished",
            "score_percent",
            "detail",
            "old_version",
            "last_activity",
        ]
    ]
    for row in report.students:
        rows.append(
            [
                row.student.username,
                row.student.get_full_name(),
                yes(row.started),
                yes(row.finished),
                blank(row.score),
                row.detail,
                yes(row.old_version),
                row.last_activity.isoformat() if row.last_activity else "",
            ]
        )
    return rows


def attempts(report: Results) -> list[list[str]]:
    rows = [
        ["username", "name", "attempt", "started_at", "submitted_at", "correct", "total"]
        + ["percent", "graded", "old_version", "graded_percent", "grading"]
    ]
    if report.quiz is None:
        return rows
    for student in report.quiz.students:
        for a in student.attempts:
            rows.append(
                [
                    student.student.username,
                    student.student.get_full_name(),
                    str(a.number),
                    a.started_at.isoformat(),
                    a.submitted_at.isoformat(),
                    str(a.correct),
                    str(a.total),
                    str(a.percent),
                    yes(a.graded),
                    yes(a.old_version),
                    blank(student.graded_percent),
                    report.quiz.grading,
                ]
            )
    return rows


def questions(report: Results) -> list[list[str]]:
    rows = [
        ["question_number", "question", "answered", "unanswered", "facility_percent"]
        + ["discrimination", "older_version_attempts", "option_number", "option", "correct"]
        + ["chosen"]
    ]
    if report.quiz is None:
        return rows
    for q in report.quiz.questions:
        figures = [str(q.answered), str(q.unanswered), blank(q.facility), blank(q.discrimination)]
        for option in q.options:
            rows.append(
                [str(q.position + 1), q.text, *figures, str(q.older_version)]
                + [str(option.number + 1), option.text, yes(option.correct), str(option.chosen)]
            )
    return rows


def cell(text: str) -> str:
    """Our own figures as they are (a discrimination of -0.25 is a number); any other text
    protected."""
    return text if re.fullmatch(r"-?\d+(\.\d+)?", text) else protect_cell(text)


TABLES = {"students": students, "attempts": attempts, "questions": questions}


def as_csv(rows: list[list[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        writer.writerow([cell(text) for text in row])
    return out.getvalue()


def csv_name(class_set: ClassSet, table: str = "students") -> str:
    title = slugify(class_set.item.title)[:60] or class_set.kind
    part = "" if table == "students" else f"-{table}"
    return f"class-results-{class_set.kind}-{class_set.pk}-{title}{part}.csv"
