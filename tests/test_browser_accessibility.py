"""axe-core (WCAG 2.0 and 2.1, A and AA) on every page a teacher and a student open, in the
light and the dark theme, on a laptop and on a phone: no violations. axe-core comes from npm
(`make setup`, package-lock.json) and is loaded into each page from node_modules."""

import json
from pathlib import Path

import pytest

from tests.helpers.browser import log_in
from tests.helpers.running_app import TEACHER, class_document_seed

pytestmark = [pytest.mark.browser, pytest.mark.services]

AXE = Path(__file__).resolve().parent.parent / "node_modules" / "axe-core" / "axe.min.js"
STUDENT = ("sam", "sam-studies-2026")

# A class's material: a document, the teacher's quiz, deck and mindmap, the quiz and the deck
# handed out, and a chat with a cited answer for each of the two; printed as the pages' ids.
SEED = f"""
import json
from django.utils import timezone
from apps.accounts.models import User
from apps.chat.models import Thread
from apps.study.classsets.models import ClassSet
from apps.study.flashcards.decks import create_deck
from apps.study.mindmaps.models import Mindmap
from apps.study.models import Question, Quiz
from tests.helpers.classes import make_class
tess = User.objects.get(username="{TEACHER[0]}")
sam = User.objects.create_user("{STUDENT[0]}", password="{STUDENT[1]}")
seventh = make_class(tess, [sam])
{class_document_seed("biologie.pdf", 2)}
quiz = Quiz.objects.create(owner=tess, title="Zellbiologie", difficulty="beginner",
                           types=["mcq"], requested=2)
Question.objects.create(quiz=quiz, position=0, kind="mcq", text="Wo liegt die DNA?",
                        options=["Ribosom", "Kern", "Membran", "Vakuole"], correct_index=1,
                        chunk_ids=[chunks[0].pk])
Question.objects.create(quiz=quiz, position=1, kind="true_false", text="Haben Pflanzen Zellwände?",
                        options=["Ja", "Nein"], correct_index=0, chunk_ids=[chunks[1].pk])
cards = [{{"front": "Mitochondrium", "back": "Kraftwerk"}},
         {{"front": "Ribosom", "back": "Proteinfabrik"}}]
deck, _ = create_deck(tess, "Organellen", cards, now=timezone.now())
tree = {{"title": "Zelle", "children": [{{"title": "Kern", "children": [{{"title": "DNA"}}]}},
                                       {{"title": "Mitochondrium"}}]}}
mindmap, _ = Mindmap.objects.create_from(tess, tree)
quiz_set = ClassSet.objects.hand_out(tess, quiz, seventh, note="Bis Freitag")
ClassSet.objects.hand_out(tess, deck, seventh)
threads = {{}}
for person in (tess, sam):
    thread = Thread.objects.create(owner=person, title="Wo liegt die DNA?", titled=True)
    thread.messages.create(role="user", content="Wo liegt die DNA?")
    citation = {{"number": 1, "chunk_id": chunks[0].pk, "document_id": doc.pk,
                "filename": doc.filename, "page": 1, "section": "", "text": chunks[0].text}}
    thread.messages.create(role="assistant", content="Im Zellkern [1].", citations=[citation])
    threads[person.username] = thread.pk
# The document's file, a page a passage, and its first page drawn as the jobs worker draws it.
import pymupdf
from apps.vault.reading import renderings
pdf = pymupdf.open()
for chunk in chunks:
    pdf.new_page().insert_textbox(pymupdf.Rect(50, 50, 550, 800), chunk.text, fontsize=14)
doc.path.parent.mkdir(parents=True, exist_ok=True)
pdf.save(doc.path)
doc.pages = len(chunks)
doc.save(update_fields=["pages"])
renderings.draw(renderings.requested(doc, 1, tess).pk, "seed")
assert renderings.requested(doc, 1, tess).status == "ready"
print(json.dumps({{"quiz": quiz.pk, "deck": deck.pk, "mindmap": mindmap.pk,
                  "class_set": quiz_set.pk, "school_class": seventh.pk, "threads": threads,
                  "document": doc.pk, "chunk": chunks[0].pk}}))
"""

# What both open, then what only the teacher opens.
PAGES = [
    "/",
    "/vault/",
    "/vault/search/?q=DNA",
    "/vault/documents/{document}/?page=1&chunk={chunk}",
    "/chat/{thread}/",
    "/study/quizzes/",
    "/study/quizzes/{quiz}/",
    "/study/decks/",
    "/study/decks/{deck}/study/",
    "/study/mindmaps/",
    "/study/workshops/",
    "/study/class-sets/",
    "/progress/",
    "/accounts/settings/",
    "/privacy/",
]
TEACHER_PAGES = [
    "/study/decks/{deck}/",
    "/study/mindmaps/{mindmap}/",
    "/study/class-sets/{class_set}/",
    "/progress/class/",
    "/classes/",
    "/classes/{school_class}/",
]

RUN_AXE = """() => axe.run(document, {
  runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
}).then(results => ({
  passed: results.passes.length,
  violations: results.violations.map(violation => ({
    id: violation.id,
    impact: violation.impact,
    nodes: violation.nodes.map(node => node.target.join(" ")).slice(0, 5),
  })),
}))"""


@pytest.fixture(scope="module")
def class_app(start_app):
    """An app of its own with a teacher, a student and the class's material; with the pages'
    ids. The LAN certificate makes the class page show its address and code as a QR code."""
    assert AXE.exists(), "axe-core is missing: run `make setup`"
    with start_app(worker=False) as app:
        ids = json.loads(app.manage("shell", "-c", SEED).strip().splitlines()[-1])
        app.manage("tls_certificate")
        app.manage("seed_progress", STUDENT[0], "--days", "30")
        yield app, ids


def violations_on(page, path: str) -> list[str]:
    page.goto(path)
    page.wait_for_load_state("networkidle")
    page.add_script_tag(path=str(AXE))
    results = page.evaluate(RUN_AXE)
    assert results["passed"] > 0, f"axe-core checked nothing on {path}"
    return [
        f"{path}: {found['id']} ({found['impact']}) at {', '.join(found['nodes'])}"
        for found in results["violations"]
    ]


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_page_a_teacher_and_a_student_open_passes_axe(browser, class_app, theme, width):
    app, ids = class_app
    found = []
    for person, pages in [(TEACHER, PAGES + TEACHER_PAGES), (STUDENT, PAGES)]:
        page = log_in(
            browser,
            app,
            *person,
            viewport={"width": width, "height": 900},
            color_scheme=theme,
            # axe-core goes in as an inline script, which the app's Content-Security-Policy
            # refuses (as it should: tests/test_browser_csp.py).
            bypass_csp=True,
        )
        # The theme as the page's own toggle leaves it (static/js/theme.js).
        page.context.add_init_script(f"localStorage.setItem('theme', '{theme}')")
        for path in pages:
            path = path.format(thread=ids["threads"][person[0]], **ids)
            found += [f"{person[0]} {violation}" for violation in violations_on(page, path)]
        page.context.close()
    assert not found, "\n".join(found)
