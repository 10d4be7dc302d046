"""A passage found on a drawn page: which of the page's words hold it, their rectangles (one per
line), and the page's text with the passage marked. Pure Python on what the worker found (words
as [x0, y0, x1, y1, text, block, line], in points)."""

import re
from difflib import SequenceMatcher

TOKEN = re.compile(r"\w+")
MIN_RUN = 4  # words in a row that must agree before a passage is taken to be on the page
SLACK = 8  # words read differently (OCR) or dropped before the alignment is taken to be another


def passage_words(words: list[list], text: str) -> range:
    """The words of the page that hold `text`: where the page's words and the passage's line
    up best, from the first to the last word of that alignment, so a word read differently in
    between (a scan's OCR) stays inside. Empty when the passage is not on the page."""
    tokens, owners = [], []
    for index, word in enumerate(words):
        for token in TOKEN.findall(word[4].lower()):
            tokens.append(token)
            owners.append(index)
    passage = TOKEN.findall(text.lower())
    if not tokens or not passage:
        return range(0)
    matcher = SequenceMatcher(None, tokens, passage, autojunk=False)
    blocks = [block for block in matcher.get_matching_blocks() if block.size]
    longest = max(blocks, key=lambda block: block.size, default=None)
    if longest is None or longest.size < min(MIN_RUN, len(passage)):
        return range(0)
    shift = longest.a - longest.b
    aligned = [block for block in blocks if abs(block.a - block.b - shift) <= SLACK]
    first = min(block.a for block in aligned)
    last = max(block.a + block.size for block in aligned) - 1
    return range(owners[first], owners[last] + 1)


def boxes(words: list[list], marked: range) -> list[list[float]]:
    """One rectangle per line around the marked words, in reading order."""
    lines: dict[int, list[float]] = {}
    for x0, y0, x1, y1, _, _, line in (words[index] for index in marked):
        box = lines.setdefault(line, [x0, y0, x1, y1])
        box[:] = [min(box[0], x0), min(box[1], y0), max(box[2], x1), max(box[3], y1)]
    return list(lines.values())


def paragraphs(words: list[list], marked: range) -> list[list[tuple[str, bool]]]:
    """The page's text, a paragraph per block, each as runs of (text, marked)."""
    found: list[list[tuple[str, bool]]] = []
    block = None
    for index, word in enumerate(words):
        if word[5] != block:
            block = word[5]
            found.append([])
        runs, inside = found[-1], index in marked
        if runs and runs[-1][1] == inside:
            runs[-1] = (f"{runs[-1][0]} {word[4]}", inside)
            continue
        if runs:
            runs[-1] = (f"{runs[-1][0]} ", runs[-1][1])
        runs.append((word[4], inside))
    return found
