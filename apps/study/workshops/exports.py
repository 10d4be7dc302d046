"""A workshop as Markdown or PDF: its outline, then every lesson written so far."""

from django.template.loader import render_to_string

from apps.llm.rendering import render_markdown
from apps.study import pdf
from apps.study.workshops.models import Workshop


def as_markdown(workshop: Workshop) -> str:
    return render_to_string(
        "study/workshops/export.md", {"workshop": workshop, "lessons": workshop.lessons.all()}
    )


def as_pdf(workshop: Workshop) -> bytes:
    document = pdf.Document(workshop.title)
    if workshop.summary:
        document.line(workshop.summary, muted=True)
    for lesson in workshop.lessons.all():
        document.heading(f"Lesson {lesson.number}: {lesson.title}", level=2)
        if lesson.content:
            document.html(render_markdown(lesson.content))
        else:
            document.line("Not written yet: open the lesson in CogniVault first.", muted=True)
    return document.output()
