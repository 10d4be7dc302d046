"""Flashcards and mindmaps in a real browser: flip and answer cards, drag a mindmap node."""

import json
import re
import urllib.request

import pytest

from tests.helpers.browser import log_in
from tests.helpers.running_app import TEACHER
from tests.helpers.slowness import REPLY

pytestmark = [pytest.mark.browser, pytest.mark.services]


def api(app, path: str, body: dict, token: str | None = None) -> dict:
    request = urllib.request.Request(
        app.url + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"}
        | ({"Authorization": f"Bearer {token}"} if token else {}),
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=REPLY) as response:
        return json.load(response)


@pytest.fixture(scope="module")
def token(running_app) -> str:
    username, password = TEACHER
    return api(running_app, "/api/v1/auth/token", {"username": username, "password": password})[
        "token"
    ]


def test_a_student_flips_cards_and_answers_them_with_buttons_and_keys(browser, running_app, token):
    cards = [
        {"front": "Mitose", "back": "Kernteilung"},
        {"front": "Meiose", "back": "Reifeteilung"},
    ]
    deck = api(running_app, "/api/v1/study/decks", {"title": "Zellteilung", "cards": cards}, token)
    page = log_in(browser, running_app, *TEACHER)
    page.goto(f"/study/decks/{deck['id']}/study/")
    card = page.locator("#study-card .flashcard")
    assert "Mitose" in card.locator(".flashcard-front").inner_text()
    assert "flipped" not in card.get_attribute("class")

    card.click()
    page.wait_for_function("document.querySelector('.flashcard').classList.contains('flipped')")
    # The 3D turn shows the back: its face is in front once the transition is over.
    card.evaluate(
        "c => Promise.all(c.getAnimations({subtree: true}).map(a => a.finished)).then(() => 1)"
    )
    front_box = card.locator(".flashcard-back").bounding_box()
    assert front_box and front_box["width"] > 100
    page.get_by_role("button", name=re.compile("^Got it")).click()
    page.locator(".flashcard-front", has_text="Meiose").wait_for()
    assert "1 of 2 mastered" in page.locator("#study-card").inner_text()

    page.keyboard.press("Space")
    page.wait_for_function("document.querySelector('.flashcard').classList.contains('flipped')")
    page.keyboard.press("g")
    page.get_by_text("All caught up").wait_for()

    page.reload()
    assert "2 of 2 mastered" in page.locator("#study-card").inner_text()
    page.goto(f"/study/decks/{deck['id']}/")
    assert "2 mastered" in page.locator("#deck-head").inner_text()
    page.context.close()


def test_a_dragged_mindmap_node_stays_where_it_was_left_after_a_reload(browser, running_app, token):
    tree = {
        "title": "Photosynthese",
        "children": [
            {"title": "Lichtreaktion", "children": [{"title": "ATP"}, {"title": "NADPH"}]},
            {"title": "Calvin-Zyklus", "children": [{"title": "CO₂-Fixierung"}]},
        ],
    }
    mindmap = api(running_app, "/api/v1/study/mindmaps", {"tree": tree}, token)
    page = log_in(browser, running_app, *TEACHER)
    page.goto(f"/study/mindmaps/{mindmap['id']}/")
    node = page.locator('.mm-node[data-id="r.1"]')
    before = node.get_attribute("transform")
    box = node.locator("rect").bounding_box()
    start_x, start_y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(start_x, start_y)
    page.mouse.down()
    for step in range(1, 11):
        page.mouse.move(start_x - 12 * step, start_y + 9 * step)
    page.mouse.up()
    page.wait_for_selector('svg.mindmap[data-saved="r.1"]')
    after = node.get_attribute("transform")
    assert after != before
    edge = page.locator('.mm-edge[data-to="r.1"]').get_attribute("d")

    page.reload()
    node = page.locator('.mm-node[data-id="r.1"]')
    assert node.get_attribute("transform") == after
    assert page.locator('.mm-edge[data-to="r.1"]').get_attribute("d") == edge

    # Folding a branch hides its children.
    page.locator('.mm-toggle[data-toggle="r.0"]').click()
    page.wait_for_selector('.mm-node[data-id="r.0.0"]', state="detached")
    assert page.locator('.mm-node[data-id="r.0"]').count() == 1

    # Another layout starts from its own arrangement; reset brings the computed one back.
    page.get_by_role("button", name="Top to bottom").click()
    page.wait_for_selector('svg.mindmap[data-layout="tb"]')
    page.get_by_role("button", name="Left to right").click()
    page.wait_for_selector('svg.mindmap[data-layout="lr"]')
    assert page.locator('.mm-node[data-id="r.1"]').get_attribute("transform") == after
    page.get_by_role("button", name="Reset layout").click()
    page.wait_for_function(
        "(t) => document.querySelector('[data-id=\"r.1\"]').getAttribute('transform') === t",
        arg=before,
    )
    page.context.close()
