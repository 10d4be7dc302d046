"""A class set's marks as a gradebook's own import file, one row per student of its class:
Moodle's grade import (username and email to match a student by, then the set's column, in
marks out of the quiz's maximum) and Canvas's gradebook CSV (Student, ID, SIS Login ID,
Section, then the assignment's column, after a "Points Possible" row). The mark is the figure
the set's policy grades (first, best, latest or average attempt); a student without one has an
empty cell, which both gradebooks leave as it was."""

from django.utils.text import slugify

from apps.study.classsets import results_csv
from apps.study.classsets.models import ClassSet
from apps.study.classsets.results import Results, results


def out_of(report: Results) -> int:
    counted = report.kind.handed_out
    return counted.out_of(report.class_set.item) if counted.out_of else 100


def mark(figures, maximum: int) -> str:
    if figures.score is None:
        return ""
    fraction = figures.fraction if figures.fraction is not None else figures.score / 100
    return f"{fraction * maximum:.2f}".rstrip("0").rstrip(".")


def moodle(report: Results) -> list[list[str]]:
    maximum = out_of(report)
    rows = [["username", "email", report.class_set.item.title]]
    for figures in report.students:
        rows.append([figures.student.username, figures.student.email, mark(figures, maximum)])
    return rows


def canvas(report: Results) -> list[list[str]]:
    maximum = out_of(report)
    section = report.class_set.school_class.name
    rows = [
        ["Student", "ID", "SIS Login ID", "Section", report.class_set.item.title],
        ["Points Possible", "", "", "", str(maximum)],
    ]
    for figures in report.students:
        student = figures.student
        name = f"{student.last_name}, {student.first_name}" if student.last_name else ""
        rows.append([name or student.username, "", student.username, section])
        rows[-1].append(mark(figures, maximum))
    return rows


GRADEBOOKS = {"moodle": moodle, "canvas": canvas}


def csv_name(class_set: ClassSet, gradebook: str) -> str:
    title = slugify(class_set.item.title)[:60] or class_set.kind
    return f"{gradebook}-marks-{slugify(class_set.school_class.name)}-{title}.csv"


def results_file(class_set: ClassSet, table: str, gradebook: str | None) -> tuple[str, str]:
    """(CSV, file name) of a set's results: a table of results_csv.py, or the marks for a
    gradebook. Pages and the API export through it."""
    report = results(class_set)
    if gradebook:
        return results_csv.as_csv(GRADEBOOKS[gradebook](report)), csv_name(class_set, gradebook)
    rows = results_csv.TABLES[table](report)
    return results_csv.as_csv(rows), results_csv.csv_name(class_set, table)
