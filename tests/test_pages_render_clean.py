"""Every page and fragment a teacher or a student opens renders clean: no template syntax left in
it (a `{# #}` or a tag split over lines is text to Django), a page opened by its address is a
whole document, and a page shows its dates in one format. The pages are crawled as each person,
from the URL map and the links (and htmx requests) of every page reached; the chat socket's
fragments are rendered as the socket and the chat workers render them."""

import re
from collections import Counter
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from django.core.management import call_command
from django.template.base import Lexer, TokenType
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from django.utils import timezone

from apps.accounts.models import ApiToken, StudentBatch
from apps.chat import conversation
from apps.chat.models import Thread
from apps.study.classsets.models import ClassSet
from apps.study.classsets.tests.factories import (
    class_passages,
    make_deck,
    make_mindmap,
    make_quiz,
    make_workshop,
)
from apps.vault.ingest_steps import STEPS
from apps.vault.models import IngestRun, IngestStep, SelfTest, SelfTestDocument
from tests.helpers.classes import make_class
from tests.helpers.users import client_for, make_user

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"
# Emoji and the other pictographs past U+1F000 show as an empty box where no emoji font is
# installed (a school's Debian): icons are inline SVG.
PICTOGRAPH = re.compile("[\U0001f000-\U0001ffff]")
TEMPLATE_SYNTAX = re.compile(r"\{#|\{%|\{\{|#\}")
# What a page shows as template text on purpose: the prompt templates and their placeholders.
SHOWN_AS_TEXT = re.compile(r"<(\w+)[^>]*\bdata-template-text\b.*?</\1>", re.DOTALL)
# Where the crawl does not go: Django's admin, the API (JSON), files, and what logs out.
NOT_CRAWLED = ("/admin/", "/api/", "/static/", "/accounts/logout/", "/favicon.ico")
A_FILE = re.compile(r"\.\w+$")  # an export: quiz.pdf, deck.apkg, results.csv
# Addresses crawled per page of the URL map (and per way of asking): a dashboard links each of
# its 90 days.
PER_PAGE = 3
# The pages the crawl must reach, by URL name, to count as having looked everywhere.
MUST_REACH = {
    "teacher": {
        "vault:index", "vault:search", "vault:run", "chat:index", "chat:thread",
        "study:quiz-list", "study:quiz-detail", "study:quiz-edit", "study:attempt-detail",
        "study:deck-list", "study:deck-detail", "study:deck-study", "study:mindmap-list",
        "study:mindmap-detail", "study:workshop-list", "study:workshop-detail",
        "study:lesson-detail", "study:class-set-list", "study:class-set-detail",
        "vault:reader", "vault:reader-page", "vault:passage", "progress:index", "progress:class",
        "classes:index", "classes:detail",
        "accounts:settings", "llm:privacy", "llm:connection_list", "llm:prompt_templates",
    },
    "student": {
        "vault:index", "vault:reader", "chat:thread", "study:quiz-detail", "study:attempt-detail",
        "study:deck-study", "study:class-set-list", "study:lesson-detail",
        "progress:index", "progress:day", "accounts:settings", "llm:privacy",
    },
}  # fmt: skip
# The shapes a date is written in: one of them per page.
MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?"
DATE_SHAPES = {
    "2026-04-15": re.compile(r"\b\d{4}-\d{2}-\d{2}(?!\d)"),
    "04/15/2026": re.compile(r"\b\d{1,2}/\d{1,2}/\d{2,4}\b"),
    "April 15, 2026": re.compile(rf"\b{MONTH} \d{{1,2}}, \d{{4}}"),
    "15 Apr 2026": re.compile(rf"\b\d{{1,2}} {MONTH}"),
}


class Page(HTMLParser):
    """A page's links (`href`, `src`), its htmx requests (`hx-get`) and its visible text."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.htmx: list[str] = []
        self.text: list[str] = []
        self.hidden = 0  # inside <script> or <style>

    def handle_starttag(self, tag, attrs) -> None:
        found = dict(attrs)
        self.links += [found[name] for name in ("href", "src") if found.get(name)]
        if found.get("hx-get"):
            self.htmx.append(found["hx-get"])
        self.hidden += tag in ("script", "style")

    def handle_endtag(self, tag) -> None:
        self.hidden -= tag in ("script", "style")

    def handle_data(self, data) -> None:
        if not self.hidden:
            self.text.append(data)


def raw_syntax(html: str) -> list[str]:
    return [html[max(0, m.start() - 60) : m.end() + 60] for m in TEMPLATE_SYNTAX.finditer(html)]


def date_shapes(text: str) -> dict[str, str]:
    return {
        shape: found[0]
        for shape, pattern in DATE_SHAPES.items()
        if (found := pattern.findall(text))
    }


def url_map() -> list[str]:
    """Every page of the URL map that takes no parameter."""

    def walk(patterns, prefix=""):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                if pattern.namespace in ("admin", "api"):
                    continue
                namespace = f"{pattern.namespace}:" if pattern.namespace else prefix
                yield from walk(pattern.url_patterns, namespace)
            elif (
                isinstance(pattern, URLPattern) and pattern.name and not pattern.pattern.converters
            ):
                yield prefix + pattern.name

    return [reverse(name) for name in walk(get_resolver().url_patterns)]


def crawl(client, start: list[str]) -> tuple[dict[str, str], list[str]]:
    """Every page reached from `start`: {path as fetched: the URL name it resolved to}, and what
    is wrong on them."""
    queue = [(path, False) for path in start]
    seen, reached, wrong = set(queue), {}, []
    taken: Counter[tuple[str, bool]] = Counter()
    while queue:
        path, htmx = queue.pop(0)
        headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
        response = client.get(path, **headers)
        where = f"{path}{' (htmx)' if htmx else ''}"
        if response.status_code >= 500:
            wrong.append(f"{where}: {response.status_code}")
        found = [(response["Location"], htmx)] if response.has_header("Location") else []
        if response.status_code < 400:
            reached[path] = resolve(urlsplit(path).path).view_name
        html = response.content.decode() if "text/html" in response.get("Content-Type", "") else ""
        if html:
            found += check(html, where, whole=not htmx and response.status_code == 200, wrong=wrong)
        for link, as_htmx in found:
            target = urljoin(path, link)
            parts = urlsplit(target)
            if (
                parts.netloc
                or not parts.path.startswith("/")
                or parts.path.startswith(NOT_CRAWLED)
                or A_FILE.search(parts.path)
            ):
                continue
            target = parts.path + (f"?{parts.query}" if parts.query else "")
            kind = (resolve(parts.path).view_name, as_htmx)
            if (target, as_htmx) not in seen and taken[kind] < PER_PAGE:
                seen.add((target, as_htmx))
                taken[kind] += 1
                queue.append((target, as_htmx))
    return reached, wrong


def check(html: str, where: str, *, whole: bool, wrong: list[str]) -> list[tuple[str, bool]]:
    """Notes in `wrong` what is wrong with a page or fragment; returns the addresses it links
    (with whether htmx asks for them)."""
    shown = SHOWN_AS_TEXT.sub("", html)
    wrong += [f"{where}: template syntax in {snippet!r}" for snippet in raw_syntax(shown)]
    if whole and (not re.search(r"<html lang=\"\w", html) or "<title>" not in html):
        wrong.append(f"{where}: opened by its address, not a whole page")
    page = Page()
    page.feed(html)
    shapes = date_shapes(" ".join(page.text))
    if len(shapes) > 1:
        wrong.append(f"{where}: dates in {len(shapes)} formats: {shapes}")
    found = [(link, False) for link in page.links] + [(link, True) for link in page.htmx]
    return found + [(link, False) for link in page.htmx]  # the same address, opened directly


def a_class_with_material(tess, sam) -> dict:
    """A class document, the teacher's quiz, deck, mindmap and workshop, all handed out; the
    student's answered attempt and one under way (one question at a time); a chat each with a
    cited answer; an ingestion run with its search check; tokens, sessions, and a class whose
    passwords are still being stored."""
    seventh = make_class(tess, [sam])
    chunks = class_passages(tess)
    quiz = make_quiz(tess, chunks)
    for item in (make_deck(tess, chunks), make_mindmap(tess), make_workshop(tess)):
        ClassSet.objects.hand_out(tess, item, seventh, note="Bis Freitag")
    due = timezone.localdate() + timedelta(days=7)
    ClassSet.objects.hand_out(tess, quiz, seventh, due=due, attempts=2, reveal="after_due")
    quiz.submit([1, 0, 0])
    quiz.submit([1, 1, 1], quiz.seat_for(sam))
    quiz.start_attempt(quiz.seat_for(sam)).answer(0, 1)
    for person in (tess, sam):
        thread = Thread.objects.create(owner=person, title="Wo liegt die DNA?", titled=True)
        thread.messages.create(role="user", content="Wo liegt die DNA?")
        citation = {
            "number": 1, "chunk_id": chunks[0].pk, "document_id": chunks[0].document_id,
            "filename": "biologie.txt", "page": 1, "section": "", "text": chunks[0].text,
        }  # fmt: skip
        thread.messages.create(
            role="assistant", content="Im Zellkern [1].", thinking="Die Frage ist…",
            citations=[citation],
        )  # fmt: skip
    run = IngestRun.objects.create(owner=tess, status="done", attempt=1)
    for position, name in enumerate(STEPS):
        IngestStep.objects.create(run=run, position=position, name=name, status="done")
    test = SelfTest.objects.create(
        owner=tess, run=run, generation=1, questions=3, recall_at_7=1, mrr=1, seconds=0.1
    )
    SelfTestDocument.objects.create(
        selftest=test, document_id=chunks[0].document_id, questions=3, recall_at_7=1, mrr=1
    )
    _, raw = ApiToken.objects.issue(sam, "Laptop")
    ApiToken.objects.authenticate(raw)
    late = StudentBatch.objects.create(created_by=tess, total=30)  # still being stored
    seventh.enrol([make_user("lena")], "student", batch=late)
    call_command("seed_progress", "sam", "--days", "7")
    return {"quiz": quiz, "threads": Thread.objects.all()}


@pytest.fixture
def classroom(db, settings):
    settings.HTTPS_REDIRECT = True
    tess, sam = make_user("tess", teacher=True), make_user("sam")
    material = a_class_with_material(tess, sam)
    people = {"teacher": tess, "student": sam}
    return {
        **{who: client_for(person) for who, person in people.items()},
        **{f"{who} user": person for who, person in people.items()},
        **material,
    }


@pytest.mark.parametrize("who", ["teacher", "student"])
def test_every_page_a_person_opens_renders_clean(classroom, who):
    quiz = classroom["quiz"]
    # A student's review is linked only from the submission that leads to it.
    review = quiz.attempts.filter(user=classroom[f"{who} user"], submitted_at__isnull=False)[0]
    start = [
        *url_map(),
        f"/study/quizzes/{quiz.pk}/?mode=one",
        reverse("study:attempt-detail", args=[quiz.pk, review.pk]),
    ]
    reached, wrong = crawl(classroom[who], start)
    assert not wrong, "\n".join(wrong)
    assert MUST_REACH[who] <= set(reached.values()), MUST_REACH[who] - set(reached.values())


def test_the_chat_sockets_fragments_render_clean(classroom):
    frames = []
    for thread in classroom["threads"]:
        frames += [
            conversation.render_thread(thread, conversation.WHOLE_PARTS),
            conversation.render_thread(thread, conversation.END_PARTS, thread.messages.last().pk),
            conversation.render_turn(thread),
        ]
    answer = classroom["threads"][0].messages.last()
    frames += [
        conversation.fragment("sources", message_id=answer.pk, citations=answer.citations),
        conversation.fragment("status", message_id=answer.pk, notice="Working on it…"),
        conversation.fragment("status", message_id=answer.pk, notice="Queued", waiting=True),
        conversation.fragment("composer-error", error="Too long."),
    ]
    for partial in ("answer-tokens", "thinking-tokens", "answer-snapshot", "thinking-snapshot"):
        frames.append(conversation.fragment(partial, message_id=answer.pk, text="Im Kern"))
    assert all(frames)
    assert not [snippet for frame in frames for snippet in raw_syntax(frame)]


def test_no_template_leaves_a_comment_or_a_tag_as_text():
    """A `{# #}` over several lines, or a tag split over lines, is text to Django's lexer: it
    would show in whatever renders that part of the template, a page or a fragment."""
    found = []
    for template in sorted(TEMPLATES.rglob("*.html")):
        inside = None  # the end tag of the {% comment %} or {% verbatim %} we are in
        for token in Lexer(template.read_text()).tokenize():
            if token.token_type == TokenType.BLOCK:
                name = token.contents.split()[0] if token.contents else ""
                if inside is None and name in ("comment", "verbatim"):
                    inside = f"end{name}"
                elif name == inside:
                    inside = None
            elif token.token_type == TokenType.TEXT and inside is None:
                found += [f"{template.relative_to(TEMPLATES)}:{token.lineno}: {snippet!r}"
                          for snippet in raw_syntax(token.contents)]  # fmt: skip
    assert not found, "\n".join(found)


def test_no_page_or_script_needs_an_emoji_font():
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for folder in (TEMPLATES, ROOT / "static", *ROOT.glob("apps/*/static"))
        for path in sorted(folder.rglob("*"))
        if path.suffix in (".html", ".js", ".css", ".svg")
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if PICTOGRAPH.search(line)
    ]
    assert not found, "\n".join(found)
