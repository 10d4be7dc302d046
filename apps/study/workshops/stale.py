"""A workshop's lessons whose source changed, and refreshing only those (apps/study/stale.py)."""

from apps.llm import gateway
from apps.study import generator
from apps.study.extractive import lessons as extractive_lessons
from apps.study.extractive import material
from apps.study.sources import as_prompt_sources
from apps.study.stale import cites_retired, live, scope_for
from apps.study.workshops.models import Lesson, Workshop
from apps.vault.errors import ScopeError
from apps.vault.models import Chunk
from apps.vault.search.query import search as search_chunks


def stale_lessons(workshop: Workshop) -> list[Lesson]:
    lessons = list(workshop.lessons.all())
    alive = live(pk for lesson in lessons for pk in lesson.chunk_ids)
    return [lesson for lesson in lessons if cites_retired(lesson.chunk_ids, alive)]


def lesson_text(lesson: Lesson) -> str:
    return f"{lesson.title} {lesson.summary}"


def refresh_workshop(workshop: Workshop) -> int:
    """Each stale lesson reads the passages that answer its title now: an extractive lesson is
    cut again at once, one the model wrote is written again when next opened."""
    scope = scope_for(workshop)
    refreshed = 0
    for lesson in stale_lessons(workshop):
        alive = live(lesson.chunk_ids)
        kept = [pk for pk in lesson.chunk_ids if pk in alive]
        try:
            hits = search_chunks(
                workshop.owner,
                lesson_text(lesson),
                k=max(1, len(lesson.chunk_ids) - len(kept)),
                scope=scope,
            )
        except (gateway.ModelUnavailable, gateway.ModelError, ScopeError):
            continue
        chunk_ids = kept + [hit.chunk_id for hit in hits if hit.chunk_id not in kept]
        if not chunk_ids:
            continue
        lesson.chunk_ids = chunk_ids
        if lesson.extractive or workshop.backend == generator.EXTRACTIVE:
            chunks = Chunk.objects.filter(pk__in=chunk_ids).select_related("document")
            passages = as_prompt_sources(chunks.order_by("document_id", "ordinal"))
            vocabulary = material.vocabulary(workshop.owner, scope, passages)
            lesson.content = extractive_lessons.lesson(passages, vocabulary)
        else:
            lesson.content, lesson.status = "", Lesson.Status.PENDING
        lesson.save(update_fields=["chunk_ids", "content", "status"])
        refreshed += 1
    return refreshed


def cited(user) -> list[list[int]]:
    """The chunks each of the user's lessons cites, for the stale counts."""
    cited = Lesson.objects.filter(workshop__owner=user).values_list("chunk_ids", flat=True)
    return [ids for ids in cited if ids]
