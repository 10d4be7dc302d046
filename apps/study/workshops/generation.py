"""Workshops: an outline first (JSON, one stricter retry), then each lesson as Markdown the
first time it is opened, cleaned of chatty filler; and the recap quiz. A worker plans the
outline and writes each lesson (apps/study/tasks.py); start_* checks and stores the request,
fill_* does the work."""

import re

from django.db import transaction
from django.template.defaultfilters import pluralize
from django.utils import timezone
from pydantic import BaseModel, StrictInt, ValidationError, field_validator

from apps.llm import jsonparse, prompts
from apps.progress import tracking
from apps.study import generator, parsing, retrieval, starting
from apps.study.errors import InvalidInput, Superseded, WorkshopNotDone
from apps.study.extractive import lessons as extractive_lessons
from apps.study.extractive import material
from apps.study.generation_job import INTERRUPTED
from apps.study.quizzes.generation import create_quiz
from apps.study.quizzes.models import Quiz
from apps.study.sources import as_prompt_sources, scope_title, sources_for
from apps.study.workshops.models import Lesson, Workshop

RECAP_QUESTIONS = 5
MAX_LESSON_CHARS = 20_000
TEXT_LABEL = "the documents' structure and text"
UNUSABLE = "the model's outline was unusable"

_FILLER = re.compile(
    r"^\s*(?:"
    r"(?:sure|certainly|of course|absolutely|great|okay|ok)[!,.]?\s*(?:here(?:'s| is)\b.*)?"
    r"|here(?:'s| is) (?:the|your|a) (?:lesson|content|markdown)\b.*"
    r"|i hope (?:this|that) helps\b.*"
    r"|(?:please )?let me know if\b.*"
    r"|feel free to\b.*"
    r"|(?:happy (?:learning|studying)|good luck)\b.*"
    r"|if you have any (?:other |more |further )?questions\b.*"
    r"|(?:do you|would you like)\b.*\?\s*"
    r")$",
    re.IGNORECASE,
)
_WRAPPING_FENCE = re.compile(r"^\s*```(?:markdown|md)?\s*\n(.*?)\n```\s*$", re.DOTALL)


class OutlineLesson(BaseModel):
    title: str
    summary: str = ""
    sources: list[StrictInt] = []

    @field_validator("title")
    @classmethod
    def _title(cls, value: str) -> str:
        value = re.sub(r"^\s*(?:lesson\s*)?\d{1,2}\s*[.):-]\s*", "", value.strip(), flags=re.I)
        if not value:
            raise ValueError("empty title")
        return value[:200]


class Outline(BaseModel):
    title: str
    summary: str = ""
    lessons: list[dict]

    @field_validator("title")
    @classmethod
    def _title(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("empty title")
        return value.strip()[:200]


def start_workshop(
    user,
    *,
    num_lessons: int,
    scope: generator.Scope = generator.WHOLE_VAULT,
    method: str | None = None,
    key: str = "",
) -> tuple[Workshop, bool]:
    """Check what is asked and store the workshop as "generating" for a worker to plan
    (fill_workshop); (the workshop, new?). The same request `key` gives back the workshop it
    made before."""
    if num_lessons not in Workshop.SIZES:
        raise InvalidInput("A workshop has 5 or 10 lessons.")
    retrieval.check_scope(user, scope)
    source = scope_title(user, scope)
    return starting.create(
        Workshop,
        user,
        key,
        title=f"Workshop on {source}"[:200],
        requested=num_lessons,
        scope=scope.as_dict(),
        asked={"method": method, "source": source},
    )


def fill_workshop(workshop: Workshop) -> list:
    """Plan a workshop started by start_workshop: retrieve, ask for the outline (once more,
    stricter, if unparseable), store its lessons, ready, and record it for progress; the badges
    just earned. With `method` "extractive" (the default when the embedded model would answer)
    the outline follows the documents' structure and every lesson is written at once from
    their passages."""
    user, scope, count = workshop.owner, generator.Scope(**workshop.scope), workshop.requested
    if generator.choose_method(workshop.asked.get("method")) == generator.EXTRACTIVE:
        from_structure(workshop)
        return tracking.record_outline(user)
    sources = retrieval.retrieve(user, scope)
    context = retrieval.context_block(sources)
    outline = lessons = answer = None
    for template in ("workshop_outline", "workshop_outline_retry"):
        answer = generator.ask(prompts.render(template, count=count, context=context))
        outline, lessons = _parse_outline(answer.text, count, sources)
        if outline is not None:
            break
    if outline is None:
        # The model gave no outline, even on a second try: the documents' own structure does.
        from_structure(workshop, label=f"{TEXT_LABEL} ({UNUSABLE})")
        return tracking.record_outline(user)
    titles = {item.value.title.casefold() for item in lessons}
    filled = [
        fields
        for fields in cut_lessons(user, scope, count)[0]
        if fields["title"].casefold() not in titles
    ][: count - len(lessons)]
    with transaction.atomic():
        written = [
            {"title": i.value.title, "summary": i.value.summary.strip(), "chunk_ids": i.chunk_ids}
            for i in lessons
        ]
        Lesson.objects.bulk_create(
            Lesson(workshop=workshop, number=number, **fields)
            for number, fields in enumerate(written + filled, start=1)
        )
        workshop.mark_ready(
            title=outline.title or workshop.title,
            summary=outline.summary.strip(),
            chunk_ids=[source.chunk_id for source in sources],
            backend=answer.backend,
            model=answer.model,
        )
    return tracking.record_outline(user)


def from_structure(workshop: Workshop, label: str = TEXT_LABEL) -> None:
    """Fill the workshop with an outline of the documents' sections and lessons of their
    passages (see apps/study/extractive/lessons.py), all written now."""
    scope = generator.Scope(**workshop.scope)
    lessons, documents, title = cut_lessons(workshop.owner, scope, workshop.requested)
    with transaction.atomic():
        Lesson.objects.bulk_create(
            Lesson(workshop=workshop, number=number, **fields)
            for number, fields in enumerate(lessons, start=1)
        )
        workshop.mark_ready(
            title=f"Workshop on {title}"[:200],
            summary=f"{len(lessons)} lessons following the sections of {documents} "
            f"document{pluralize(documents)}, cut from their text.",
            chunk_ids=[chunk_id for fields in lessons for chunk_id in fields["chunk_ids"]],
            backend=generator.EXTRACTIVE,
            model=label,
        )


def cut_lessons(user, scope: generator.Scope, count: int) -> tuple[list[dict], int, str]:
    """Up to `count` lessons cut from the scope's documents, as the fields of written,
    extractive Lesson rows; with how many documents they follow and a title for them."""
    documents, title = material.outlined(user, scope)
    now = timezone.now()
    lessons = [
        {
            "title": cut["title"][:200],
            "summary": f"Also: {', '.join(cut['also'])}"[:500] if cut["also"] else "",
            "content": cut["content"][:MAX_LESSON_CHARS],
            "status": Lesson.Status.READY,
            "chunk_ids": cut["chunk_ids"],
            "generated_at": now,
            "extractive": True,
        }
        for cut in extractive_lessons.cut(documents, count)
    ]
    return lessons, len(documents), title


def _parse_outline(text: str, count: int, sources) -> tuple[Outline | None, list]:
    data = jsonparse.extract_json(text)
    if not isinstance(data, dict):
        return None, []
    try:
        outline = Outline.model_validate(data)
    except ValidationError:
        return None, []
    # `sources` on a lesson are excerpt numbers; validate_items maps them to chunk ids.
    items = parsing.validate_items(
        outline.lessons,
        schema=OutlineLesson,
        count=count,
        sources=sources,
        identity=lambda lesson: lesson.title.casefold(),
    )
    if not items:
        return None, []
    return outline, items


def clean_lesson(text: str) -> str:
    """The lesson without a wrapping code fence or chatty lines like "I hope this helps!"."""
    fenced = _WRAPPING_FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    lines = [line for line in text.splitlines() if not _FILLER.match(line)]
    return "\n".join(lines).strip()[:MAX_LESSON_CHARS]


def start_lesson(lesson: Lesson) -> bool:
    """Ask a worker to write a lesson not written yet (or failed); False when it is written or
    being written already, so a second click queues nothing."""
    started = Lesson.objects.restart(lesson.pk, Lesson.Status.PENDING, Lesson.Status.FAILED)
    lesson.refresh_from_db()
    return bool(started)


def fill_lesson(lesson: Lesson) -> None:
    """Write the lesson's Markdown (a worker, after start_lesson); raises a GenerationError
    with the reason when it cannot."""
    workshop = lesson.workshop
    sources = as_prompt_sources(sources_for(workshop.owner, lesson.chunk_ids or workshop.chunk_ids))
    if not sources:
        raise generator.EmptyScope(
            "The documents this lesson was based on are no longer in your vault."
        )
    outline = "; ".join(f"{other.number}. {other.title}" for other in workshop.lessons.all())
    prompt = prompts.render(
        "workshop_lesson",
        workshop_title=workshop.title,
        number=lesson.number,
        total=workshop.lessons.count(),
        title=lesson.title,
        summary=lesson.summary or lesson.title,
        outline=outline,
        context=retrieval.context_block(sources),
    )
    content = clean_lesson(generator.ask(prompt, json=False, temperature=0.3).text)
    if not content:
        raise generator.NothingValid("The model returned an empty lesson. Try again.")
    written = {
        "content": content,
        "status": Lesson.Status.READY,
        "error": "",
        "generated_at": timezone.now(),
    }
    # Only while this worker holds it: one settled as interrupted (and retried) meanwhile is not
    # overwritten behind its page.
    if not Lesson.objects.finish(lesson.pk, lesson.worker, **written):
        raise Superseded(INTERRUPTED)
    for name, value in written.items():
        setattr(lesson, name, value)


def recap_quiz(workshop: Workshop) -> Quiz:
    """The workshop's recap quiz, made the first time it is asked for: a short quiz over the
    chunks the workshop was built from, once every lesson is done."""
    if workshop.completed_at is None:
        raise WorkshopNotDone("Complete every lesson first; the recap quiz comes at the end.")
    if workshop.recap_quiz:
        return workshop.recap_quiz
    sources = as_prompt_sources(sources_for(workshop.owner, workshop.chunk_ids))
    if not sources:
        raise generator.EmptyScope("The workshop's documents are no longer in your vault.")
    return create_quiz(
        workshop.owner,
        method=generator.EXTRACTIVE if workshop.backend == generator.EXTRACTIVE else None,
        num_questions=RECAP_QUESTIONS,
        difficulty="intermediate",
        types=["mcq", "true_false"],
        scope=generator.Scope(**workshop.scope),
        workshop=workshop,
        sources=sources,
    )
