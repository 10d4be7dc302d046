"""Mindmap layout: boxes sized to their wrapped text, placed as a tidy tree or radially.

The tidy layouts follow Reingold and Tilford: each subtree is laid out on its own, then
siblings are pushed apart along their contours (the extent of each level of a subtree) until
no level overlaps, and a parent is centred over its first and last child. Levels sit in
columns (left to right) or rows (top to bottom) as wide as their widest box, so boxes of
different levels never meet either. The radial layout gives each node an angular sector in
proportion to its leaves and picks ring radii large enough that no two boxes can touch.
"""

import math
import unicodedata
from dataclasses import dataclass, field

from apps.study.errors import MindmapError
from apps.study.mindmaps.tree import walk

LAYOUTS = ("lr", "tb", "radial")

# Text and box metrics per node kind: font size, how much wider its bold glyphs run, the
# widest line, padding.
STYLE = {
    "root": {"font": 18, "bold": 1.12, "max_width": 220, "pad_x": 16, "pad_y": 12},
    "topic": {"font": 15, "bold": 1.08, "max_width": 200, "pad_x": 12, "pad_y": 9},
    "leaf": {"font": 13, "bold": 1.0, "max_width": 180, "pad_x": 10, "pad_y": 7},
}
LINE_HEIGHT = 1.3
MAX_LINES = 4
SIBLING_GAP = 14.0
LEVEL_GAP = 56.0
MARGIN = 24.0


def char_width(ch: str) -> float:
    """Rough advance of a character in em, generous enough for common sans fonts."""
    if unicodedata.east_asian_width(ch) in "WF" or ord(ch) > 0xFFFF:
        return 1.15
    if unicodedata.category(ch).startswith("M") or ch in "\u200d\ufe0f":
        return 0.0
    if ch in "il.,:;'|!ijtfI ":
        return 0.36
    if ch in "mwMW@%":
        return 0.95
    if ch.isupper() or ch.isdigit():
        return 0.7
    return 0.6


def text_width(text: str, font: float) -> float:
    return sum(char_width(ch) for ch in text) * font


def wrap(text: str, font: float, max_width: float) -> list[str]:
    """Greedy word wrap to `max_width`; a word longer than a line is cut; at most MAX_LINES."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        candidate = f"{current} {word}" if current else word
        if text_width(candidate, font) <= max_width:
            current = candidate
            continue
        if current:
            lines.append(current)
        current = ""
        for ch in word:
            if text_width(current + ch, font) > max_width and current:
                lines.append(current)
                current = ""
            current += ch
    if current:
        lines.append(current)
    if len(lines) > MAX_LINES:
        last = lines[MAX_LINES - 1]
        while last and text_width(last + "…", font) > max_width:
            last = last[:-1]
        lines = [*lines[: MAX_LINES - 1], last.rstrip() + "…"]
    return lines


@dataclass
class Box:
    id: str
    title: str
    note: str
    kind: str
    level: int
    parent: str | None
    lines: list[str]
    font: float
    w: float
    h: float
    hidden_children: int = 0
    children: list["Box"] = field(default_factory=list)
    x: float = 0.0
    y: float = 0.0

    @property
    def left(self) -> float:
        return self.x - self.w / 2

    @property
    def top(self) -> float:
        return self.y - self.h / 2


def make_box(node_id: str, node: dict, level: int, parent: str | None, leaf: bool) -> Box:
    kind = "root" if level == 1 else ("leaf" if leaf else "topic")
    style = STYLE[kind]
    measure = style["font"] * style["bold"]
    lines = wrap(node["title"], measure, style["max_width"])
    widest = max(text_width(line, measure) for line in lines)
    return Box(
        id=node_id,
        title=node["title"],
        note=node.get("note", ""),
        kind=kind,
        level=level,
        parent=parent,
        lines=lines,
        font=style["font"],
        w=round(max(widest, 24) + 2 * style["pad_x"], 1),
        h=round(len(lines) * style["font"] * LINE_HEIGHT + 2 * style["pad_y"], 1),
    )


def visible_boxes(tree: dict, collapsed: set[str]) -> Box:
    """Boxes for the nodes on screen: a collapsed node keeps its box, its subtree goes."""

    def build(node: dict, node_id: str, level: int, parent: str | None) -> Box:
        folded = node_id in collapsed and node["children"]
        box = make_box(node_id, node, level, parent, leaf=not node["children"])
        if folded:
            box.hidden_children = sum(1 for _ in walk(node)) - 1
        else:
            box.children = [
                build(child, f"{node_id}.{i}", level + 1, node_id)
                for i, child in enumerate(node["children"])
            ]
        return box

    return build(tree, "r", 1, None)


def all_boxes(root: Box) -> list[Box]:
    boxes, stack = [], [root]
    while stack:
        box = stack.pop()
        boxes.append(box)
        stack.extend(reversed(box.children))
    return boxes


def tidy(root: Box, vertical: bool) -> None:
    """Reingold–Tilford on the breadth axis; levels in columns (lr) or rows (tb)."""
    breadth = (lambda b: b.w) if vertical else (lambda b: b.h)
    depth_size = (lambda b: b.h) if vertical else (lambda b: b.w)
    offsets: dict[str, float] = {}

    def contour(box: Box) -> list[list[float]]:
        half = breadth(box) / 2
        if not box.children:
            return [[-half, half]]
        merged: list[list[float]] = []
        shifts = []
        for child in box.children:
            outline_ = contour(child)
            shift = 0.0
            if merged:
                shift = max(
                    merged[i][1] - outline_[i][0] + SIBLING_GAP
                    for i in range(min(len(merged), len(outline_)))
                )
            for i, (lo, hi) in enumerate(outline_):
                if i < len(merged):
                    merged[i] = [min(merged[i][0], lo + shift), max(merged[i][1], hi + shift)]
                else:
                    merged.append([lo + shift, hi + shift])
            shifts.append(shift)
        centre = (shifts[0] + shifts[-1]) / 2
        for child, shift in zip(box.children, shifts, strict=True):
            offsets[child.id] = shift - centre
        return [[-half, half]] + [[lo - centre, hi - centre] for lo, hi in merged]

    contour(root)
    boxes = all_boxes(root)
    levels: dict[int, float] = {}
    for box in boxes:
        levels[box.level] = max(levels.get(box.level, 0.0), depth_size(box))
    level_centre, edge = {}, 0.0
    for level in sorted(levels):
        level_centre[level] = edge + levels[level] / 2
        edge += levels[level] + LEVEL_GAP

    def place(box: Box, along: float) -> None:
        across = level_centre[box.level]
        box.x, box.y = (along, across) if vertical else (across, along)
        for child in box.children:
            place(child, along + offsets[child.id])

    place(root, 0.0)


def radial(root: Box) -> None:
    boxes = all_boxes(root)
    leaves: dict[str, int] = {}

    def count(box: Box) -> int:
        leaves[box.id] = sum(count(child) for child in box.children) or 1
        return leaves[box.id]

    count(root)
    sectors: dict[str, tuple[float, float]] = {root.id: (0.0, 2 * math.pi)}
    for box in boxes:
        start, end = sectors[box.id]
        for child in box.children:
            span = (end - start) * leaves[child.id] / leaves[box.id]
            sectors[child.id] = (start, start + span)
            start += span
    by_level: dict[int, list[Box]] = {}
    for box in boxes:
        by_level.setdefault(box.level, []).append(box)
    diameter = max(math.hypot(box.w, box.h) for box in boxes) + SIBLING_GAP
    radius = {1: 0.0}
    for level in sorted(by_level)[1:]:
        needed = radius[level - 1] + diameter
        if len(by_level[level]) > 1:
            # Neighbours on a ring are at least the narrowest sector apart: their centres
            # are then a chord of at least one box diagonal apart.
            narrowest = min(sectors[b.id][1] - sectors[b.id][0] for b in by_level[level])
            narrowest = min(narrowest, math.pi)
            needed = max(needed, diameter / (2 * math.sin(narrowest / 2)))
        radius[level] = needed
    for box in boxes:
        start, end = sectors[box.id]
        angle = (start + end) / 2 - math.pi / 2
        box.x = radius[box.level] * math.cos(angle)
        box.y = radius[box.level] * math.sin(angle)


def edge_path(parent: Box, child: Box, layout: str) -> str:
    """From side to side of the boxes; static/js/mindmap.js draws the same while dragging."""
    if layout == "lr":
        sign = 1 if child.x >= parent.x else -1
        px, py = parent.x + sign * parent.w / 2, parent.y
        cx, cy = child.x - sign * child.w / 2, child.y
        mx = (px + cx) / 2
        return f"M{px:.1f},{py:.1f} C{mx:.1f},{py:.1f} {mx:.1f},{cy:.1f} {cx:.1f},{cy:.1f}"
    if layout == "tb":
        sign = 1 if child.y >= parent.y else -1
        px, py = parent.x, parent.y + sign * parent.h / 2
        cx, cy = child.x, child.y - sign * child.h / 2
        my = (py + cy) / 2
        return f"M{px:.1f},{py:.1f} C{px:.1f},{my:.1f} {cx:.1f},{my:.1f} {cx:.1f},{cy:.1f}"
    return f"M{parent.x:.1f},{parent.y:.1f} L{child.x:.1f},{child.y:.1f}"


@dataclass
class Drawing:
    layout: str
    boxes: list[Box]
    edges: list[tuple[Box, Box, str]]
    view_box: tuple[float, float, float, float]


def draw(
    tree: dict,
    layout: str = "lr",
    positions: dict | None = None,
    collapsed: list[str] | None = None,
) -> Drawing:
    """Lay the visible tree out, then put dragged nodes where they were left."""
    if layout not in LAYOUTS:
        raise MindmapError(f"Unknown layout {layout!r}: use one of {', '.join(LAYOUTS)}.")
    root = visible_boxes(tree, set(collapsed or []))
    if layout == "radial":
        radial(root)
    else:
        tidy(root, vertical=layout == "tb")
    boxes = all_boxes(root)
    for box in boxes:
        moved = (positions or {}).get(box.id)
        if moved:
            box.x, box.y = float(moved[0]), float(moved[1])
    for box in boxes:
        box.x, box.y = round(box.x, 1), round(box.y, 1)
    by_id = {box.id: box for box in boxes}
    edges = [
        (by_id[box.parent], box, edge_path(by_id[box.parent], box, layout))
        for box in boxes
        if box.parent
    ]
    left = min(box.left for box in boxes) - MARGIN
    top = min(box.top for box in boxes) - MARGIN
    right = max(box.left + box.w for box in boxes) + MARGIN
    bottom = max(box.top + box.h for box in boxes) + MARGIN
    view_box = (round(left, 1), round(top, 1), round(right - left, 1), round(bottom - top, 1))
    return Drawing(layout, boxes, edges, view_box)
