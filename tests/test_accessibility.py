"""What axe-core (WCAG 2.1 A/AA) found on the pages: text colours too faint on their
background, a flashcard whose name hid its text, a label on an element that may not have one."""

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from apps.study.flashcards import decks

ROOT = Path(__file__).resolve().parent.parent
CSS = (Path(__file__).resolve().parent.parent / "static" / "css" / "app.css").read_text()
TEXT_COLOURS = ["--text", "--muted", "--accent", "--danger", "--ok", "--warn"]


def theme(selector: str) -> dict[str, str]:
    """The colour variables a rule (`:root {` or `:root[data-theme="dark"] {`) sets."""
    body = CSS.split(selector, 1)[1].split("}", 1)[0]
    return dict(re.findall(r"(--[\w-]+):\s*(#[0-9a-fA-F]{6})", body))


def luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: str, other: str) -> float:
    light, dark = sorted([luminance(one), luminance(other)], reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize("selector", [":root {", ':root[data-theme="dark"] {'])
def test_every_text_colour_reads_at_4_5_to_1_on_the_page_and_on_a_card(selector):
    colours = theme(selector)
    for name in TEXT_COLOURS:
        for background in ("--bg", "--surface"):
            ratio = contrast(colours[name], colours[background])
            assert ratio >= 4.5, f"{name} on {background}: {ratio:.2f}:1"


@pytest.mark.django_db
def test_a_flashcard_is_named_by_its_text_and_hides_its_back_until_flipped(alice, alice_client):
    deck, _ = decks.create_deck(
        alice, "Zellen", [{"front": "Mitose", "back": "Teilung"}], now=timezone.now() - timedelta(1)
    )
    page = alice_client.get(f"/study/decks/{deck.pk}/study/").content.decode()
    card = re.search(r'<div class="flashcard"[^>]*>', page)[0]
    assert "aria-label" not in card and 'aria-describedby="flip-hint"' in card
    assert 'id="flip-hint"' in page
    assert '<div class="flashcard-face flashcard-back" aria-hidden="true">' in page


@pytest.mark.django_db
def test_the_classroom_qr_code_is_an_image_with_a_name(tess_class, tess_client):
    page = tess_client.get(f"/classes/{tess_class.pk}/").content.decode()
    qr = re.search(r'<div class="qr"[^>]*>', page)[0]
    assert 'role="img"' in qr and "aria-label=" in qr


def test_a_table_wider_than_the_screen_can_be_scrolled_from_the_keyboard():
    """Its scrolling box takes the focus (axe-core's scrollable-region-focusable, at 390 px)."""
    boxes = [
        (template.name, box)
        for template in (ROOT / "templates").rglob("*.html")
        for box in re.findall(r'<div class="table-scroll"[^>]*>', template.read_text())
    ]
    assert boxes
    assert all('tabindex="0"' in box for _, box in boxes), boxes
