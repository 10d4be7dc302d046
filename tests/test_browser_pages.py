"""Pages as a browser draws them: a reviewed quiz colours each chosen answer by right or wrong
only while the answer key shows, and the teacher's chat, with its long list of chats, fits a
phone."""

import json

import pytest

from tests.helpers.browser import log_in
from tests.helpers.running_app import TEACHER

pytestmark = [pytest.mark.browser, pytest.mark.services]

STUDENT = ("sam", "sam-studies-2026")
LONG_TITLES = [
    "Wie unterscheiden sich prokaryotische und eukaryotische Zellen in ihrem Aufbau?",
    "Welche Aufgaben übernehmen Mitochondrien, Chloroplasten und das endoplasmatische Retikulum?",
    "Zusammenfassung: Zellteilung, Mitose und Meiose im Vergleich",
]

# The teacher's quiz of two questions, answered by her (the key shows: her own quiz) and by the
# student on the class set (answers after the due date: hidden), each with the first answer
# right and the second wrong; the teacher's chats with long titles.
SEED = f"""
import json
from apps.accounts.models import User
from apps.chat.models import Thread
from apps.classes.models import Enrolment, SchoolClass
from apps.study.classsets.models import ClassSet
from apps.study.models import Question, Quiz
tess = User.objects.get(username="{TEACHER[0]}")
sam = User.objects.create_user("{STUDENT[0]}", password="{STUDENT[1]}")
quiz = Quiz.objects.create(owner=tess, title="Zellbiologie", difficulty="beginner",
                           types=["mcq"], requested=2)
Question.objects.create(quiz=quiz, position=0, kind="mcq", text="Wo liegt die DNA?",
                        options=["Ribosom", "Kern", "Membran", "Vakuole"], correct_index=1)
Question.objects.create(quiz=quiz, position=1, kind="true_false", text="Haben Pflanzen Zellwände?",
                        options=["Ja", "Nein"], correct_index=0)
seventh = SchoolClass.objects.create_for(tess, "7b")
seventh.enrol([sam], Enrolment.Role.STUDENT)
class_set = ClassSet.objects.hand_out(tess, quiz, seventh, reveal="after_due")
mine, _ = quiz.submit([1, 1])  # in the quiz's own order: "Kern" (right), "Nein" (wrong)
sams, _ = quiz.submit([1, 1], quiz.seat_for(sam))
threads = [Thread.objects.create(owner=tess, title=title, titled=True).pk
           for title in {LONG_TITLES!r}]
from tests.helpers.documents import make_document
make_document(tess, "Zusammenfassung der Zellbiologie für die Klasse 7b, Kapitel 1 bis 4.pdf",
              status="done", chunk_count=12)
print(json.dumps({{"quiz": quiz.pk, "reviews": {{"tess": mine.pk, "sam": sams.pk}},
                  "thread": threads[-1], "class": seventh.pk,
                  "class_set": class_set.pk}}))
"""

# The colours of the chosen answers ("your answer") and of the theme's text, ok and danger.
CHOSEN_COLOURS = """() => {
  const probe = document.body.appendChild(document.createElement("span"));
  const colour = name => {
    probe.style.color = `var(${name})`;
    return getComputedStyle(probe).color;
  };
  const theme = {text: colour("--text"), ok: colour("--ok"), danger: colour("--danger")};
  const chosen = [...document.querySelectorAll(".review li")]
    .filter(li => li.textContent.includes("your answer"))
    .map(li => [li.textContent.trim().split(/\\s+/)[0], getComputedStyle(li).color]);
  return {theme, chosen};
}"""

# The composer's Send button's box, or nothing while there is none shown.
SEND_BUTTON_BOX = """() => {
  const send = [...document.querySelectorAll("#composer-buttons button")]
    .find(button => button.textContent.trim() === "Send" && button.checkVisibility());
  if (!send) return null;
  const box = send.getBoundingClientRect();
  return {x: box.x, width: box.width};
}"""


@pytest.fixture(scope="module")
def class_app(start_app):
    with start_app(worker=False) as app:
        ids = json.loads(app.manage("shell", "-c", SEED).strip().splitlines()[-1])
        yield app, ids


def test_chosen_answers_are_green_or_red_with_the_key_and_plain_without(browser, class_app):
    app, ids = class_app
    for person, shown in [(TEACHER, True), (STUDENT, False)]:
        page = log_in(browser, app, *person)
        page.goto(f"/study/quizzes/{ids['quiz']}/attempts/{ids['reviews'][person[0]]}/")
        found = page.evaluate(CHOSEN_COLOURS)
        theme, chosen = found["theme"], dict(found["chosen"])
        assert set(chosen) == {"Kern", "Nein"}, found
        if shown:
            assert (chosen["Kern"], chosen["Nein"]) == (theme["ok"], theme["danger"]), found
        else:
            assert set(chosen.values()) == {theme["text"]}, found
        page.context.close()


# The buttons of each row of the page's table (documents, students) that lie outside the screen.
ACTIONS_OFF_SCREEN = """() => [...document.querySelectorAll("table.stack td button")]
  .map(button => [button.textContent.trim(), button.getBoundingClientRect()])
  .filter(([, box]) => box.x < 0 || box.x + box.width > 390)
  .map(([name]) => name)"""


@pytest.mark.parametrize("address", ["/vault/", "/classes/{class}/"])
def test_a_rows_actions_are_on_a_phones_screen(browser, class_app, address):
    app, ids = class_app
    page = log_in(browser, app, *TEACHER, viewport={"width": 390, "height": 844})
    page.goto(address.format(**ids))
    buttons = page.locator("table.stack td button")

    assert buttons.count() >= 2
    assert page.evaluate(ACTIONS_OFF_SCREEN) == []
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
    page.context.close()


# The cells of the page's results tables that lie, wholly or in part, outside the screen.
CELLS_OFF_SCREEN = """() => [...document.querySelectorAll("#class-results td, #quiz-attempts td")]
  .map(cell => [cell.textContent.trim(), cell.getBoundingClientRect()])
  .filter(([, box]) => box.x < 0 || box.x + box.width > 390)
  .map(([text]) => text)"""


def test_a_class_sets_results_are_read_on_a_phone_without_scrolling_sideways(browser, class_app):
    app, ids = class_app
    page = log_in(browser, app, *TEACHER, viewport={"width": 390, "height": 844})
    page.goto(f"/study/class-sets/{ids['class_set']}/")
    student = page.locator(f'#class-results tr[data-student="{STUDENT[0]}"]')

    assert student.get_by_text(STUDENT[0]).is_visible()  # the name cell, with the username
    assert "50 %" in student.inner_text()
    assert page.evaluate(CELLS_OFF_SCREEN) == []
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
    page.context.close()


def test_the_teachers_chat_with_long_titles_fits_a_phone(browser, class_app):
    app, ids = class_app
    page = log_in(browser, app, *TEACHER, viewport={"width": 390, "height": 844})
    page.goto(f"/chat/{ids['thread']}/")
    page.get_by_role("button", name="Send").wait_for()
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
    # Found and measured in one step of the page, once shown: the socket's first fragment swaps
    # the composer's buttons in again (out of band), and a button found in one call may be gone
    # by the next.
    box = page.wait_for_function(SEND_BUTTON_BOX).json_value()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    page.context.close()
