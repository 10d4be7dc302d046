"""Mindmaps: validate a topic tree, lay it out (tidy tree or radial), draw it as SVG, export it.

The tidy layouts follow Reingold and Tilford: each subtree is laid out on its own, then
siblings are pushed apart along their contours (the extent of each level of a subtree) until
no level overlaps, and a parent is centred over its first and last child. Levels sit in
columns (left to right) or rows (top to bottom) as wide as their widest box, so boxes of
different levels never meet either. The radial layout gives each node an angular sector in
proportion to its leaves and picks ring radii large enough that no two boxes can touch.
"""

import math
import re
import unicodedata
from dataclasses import dataclass, field

import cairosvg
from django.template.loader import render_to_string

from apps.llm import jsonparse, prompts
from apps.study import generator

MAX_LEVELS = 4  # the root is level 1
MAX_CHILDREN = 8
MAX_TITLE = 120
MAX_NOTE = 500
MAX_SOURCE = 200
POSITION_LIMIT = 100_000.0
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
MAX_EXPORT_PIXELS = 4000


class MindmapError(ValueError):
    """A tree we cannot draw; the message is shown to the person."""


# --- The tree -------------------------------------------------------------------------------


def clean_text(value: object, limit: int) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return ""
    # Control characters are not allowed in XML at all; line breaks and tabs become spaces.
    text = "".join(ch for ch in value if ch.isspace() or unicodedata.category(ch) != "Cc")
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def clean_node(raw: object, level: int) -> dict | None:
    """A valid node, or None to drop it: it needs a title; deeper or extra children go."""
    if not isinstance(raw, dict):
        return None
    title = clean_text(raw.get("title") or raw.get("label") or raw.get("name"), MAX_TITLE)
    if not title:
        return None
    node: dict = {"title": title}
    note = clean_text(raw.get("note"), MAX_NOTE)
    if note:
        node["note"] = note
    source = raw.get("source")
    if isinstance(source, int) and not isinstance(source, bool):
        node["source"] = source
    elif clean_text(source, MAX_SOURCE):
        node["source"] = clean_text(source, MAX_SOURCE)
    children = raw.get("children")
    node["children"] = []
    if level < MAX_LEVELS and isinstance(children, list):
        for child in children:
            cleaned = clean_node(child, level + 1)
            if cleaned is not None:
                node["children"].append(cleaned)
            if len(node["children"]) == MAX_CHILDREN:
                break
    return node


def clean_tree(raw: object) -> dict:
    if isinstance(raw, dict) and "title" not in raw and isinstance(raw.get("root"), dict):
        raw = raw["root"]
    tree = clean_node(raw, 1)
    if tree is None:
        raise MindmapError("The mindmap needs a root with a title.")
    return tree


def walk(tree: dict, node_id: str = "r", level: int = 1):
    """(node id, node, level, parent id) for every node, depth first; ids are index paths."""
    stack = [(node_id, tree, level, None)]
    while stack:
        current_id, node, depth, parent = stack.pop()
        yield current_id, node, depth, parent
        for index in range(len(node["children"]) - 1, -1, -1):
            stack.append((f"{current_id}.{index}", node["children"][index], depth + 1, current_id))


def node_ids(tree: dict) -> set[str]:
    return {node_id for node_id, *_ in walk(tree)}


def outline(tree: dict) -> str:
    """A Markdown outline: the root as heading, every other node as a nested bullet."""
    lines = [f"# {tree['title']}", ""]
    if tree.get("note"):
        lines += [tree["note"], ""]
    for _, node, level, _ in walk(tree):
        if level == 1:
            continue
        note = f" — {node['note']}" if node.get("note") else ""
        lines.append(f"{'  ' * (level - 2)}- {node['title']}{note}")
    return "\n".join(lines) + "\n"


BULLET = re.compile(r"^(?P<indent>[ \t]*)[-*+]\s+(?P<text>.+)$")


def parse_outline(text: str, fallback_title: str = "Mindmap") -> dict:
    """The reverse of `outline`: `# Root` then nested `- bullets` (any consistent indent)."""
    root: dict = {"title": fallback_title, "children": []}
    stack: list[tuple[int, dict]] = [(-1, root)]
    for line in text.splitlines():
        if line.startswith("# ") and not root["children"]:
            root["title"] = line[2:].strip() or fallback_title
            continue
        match = BULLET.match(line)
        if not match:
            continue
        indent = len(match["indent"].expandtabs(4))
        title, _, note = match["text"].partition(" — ")
        node = {"title": title, "children": []}
        if note:
            node["note"] = note
        while stack[-1][0] >= indent:
            stack.pop()
        stack[-1][1]["children"].append(node)
        stack.append((indent, node))
    return clean_tree(root)


def tree_schema(level: int = 1) -> dict:
    """The JSON schema of a node with its subtree, unrolled to MAX_LEVELS (no recursion), so
    Ollama and llama.cpp keep even a tiny model to the shape; clean_tree still judges it."""
    node = {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "note": {"type": "string"},
            "source": {"type": "integer"},
        },
        "required": ["title"],
    }
    if level < MAX_LEVELS:
        children = {"type": "array", "items": tree_schema(level + 1), "maxItems": MAX_CHILDREN}
        node["properties"]["children"] = children
        node["required"].append("children")
    return node


def generate_tree(user, scope: generator.Scope, title: str = "") -> tuple[dict, generator.Answer]:
    """The shared recipe for one tree: retrieve, prompt, generate JSON, parse, validate.

    A node's "source" (the excerpt number the model cites) becomes that excerpt's chunk id.
    """
    sources = generator.retrieve(user, scope)  # never empty: it raises EmptyScope instead
    prompt = prompts.render(
        "mindmap",
        context=generator.context_block(sources),
        title_hint=f'Call it "{title}".' if title else "",
        max_children=MAX_CHILDREN,
        levels=MAX_LEVELS,
    )
    answer = generator.ask(prompt, json=tree_schema())
    data = jsonparse.extract_json(answer.text)
    if isinstance(data, list) and len(data) == 1:
        data = data[0]
    try:
        tree = clean_tree(data)
    except MindmapError as error:
        raise generator.NothingValid(
            "The model's answer held no usable mindmap. Try again, or pick a narrower scope."
        ) from error
    for _, node, _, _ in walk(tree):
        cited = node.pop("source", None)
        if isinstance(cited, int) and 1 <= cited <= len(sources):
            node["source"] = sources[cited - 1].chunk_id
    if title:
        tree["title"] = clean_text(title, MAX_TITLE)
    return tree, answer


def generate(user, scope: generator.Scope, title: str = ""):
    """Generate a mindmap from the vault and store it; raises generator.GenerationError."""
    from apps.study import events
    from apps.study.models import Mindmap

    tree, answer = generate_tree(user, scope, title)
    mindmap = Mindmap.objects.create(
        owner=user,
        title=(title or tree["title"])[:200],
        tree=tree,
        category_ids=list(scope.category_ids),
        document_ids=list(scope.document_ids),
        model_label=f"{answer.backend} · {answer.model}".strip(" ·"),
    )
    events.mindmap_created(user)
    return mindmap


# --- Text measuring and wrapping ------------------------------------------------------------


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


# --- Layout ---------------------------------------------------------------------------------


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


# --- Output ---------------------------------------------------------------------------------


def drawing_for(mindmap) -> Drawing:
    """The mindmap in its saved layout, with the nodes dragged in that layout where left."""
    positions = (mindmap.positions or {}).get(mindmap.layout, {})
    return draw(mindmap.tree, mindmap.layout, positions, mindmap.collapsed)


def render_svg(mindmap, drawing: Drawing | None = None) -> str:
    """The mindmap as a standalone SVG document (the page shows the very same markup)."""
    drawing = drawing or drawing_for(mindmap)
    rows = []
    for box in drawing.boxes:
        first = -(len(box.lines) - 1) * box.font * LINE_HEIGHT / 2 + box.font * 0.35
        rows.append(
            {
                "box": box,
                "cx": num(box.x),
                "cy": num(box.y),
                "x": num(-box.w / 2),
                "y": num(-box.h / 2),
                "w": num(box.w),
                "h": num(box.h),
                "font": num(box.font),
                "toggle_x": num(box.w / 2),
                "lines": [
                    (num(first + i * box.font * LINE_HEIGHT), line)
                    for i, line in enumerate(box.lines)
                ],
                "folded": box.hidden_children > 0,
                "foldable": box.hidden_children > 0 or bool(box.children),
            }
        )
    left, top, width, height = drawing.view_box
    return render_to_string(
        "study/mindmaps/mindmap.svg",
        {
            "mindmap": mindmap,
            "drawing": drawing,
            "rows": rows,
            "view_box": " ".join(map(num, drawing.view_box)),
            "left": num(left),
            "top": num(top),
            "width": num(width),
            "height": num(height),
        },
    )


def num(value: float) -> str:
    """Numbers for SVG attributes: one decimal, never a locale's comma."""
    return f"{value:.1f}".removesuffix(".0")


def export_scale(drawing: Drawing, largest: float) -> float:
    return min(2.0, largest / max(drawing.view_box[2], drawing.view_box[3]))


def to_png(mindmap) -> bytes:
    drawing = drawing_for(mindmap)
    svg = render_svg(mindmap, drawing).encode()
    return cairosvg.svg2png(bytestring=svg, scale=export_scale(drawing, MAX_EXPORT_PIXELS))


def to_pdf(mindmap) -> bytes:
    drawing = drawing_for(mindmap)
    svg = render_svg(mindmap, drawing).encode()
    # PDF viewers refuse pages past 200 inches (14,400 pt); 1 px is 0.75 pt.
    scale = min(1.0, export_scale(drawing, 14_400 / 0.75))
    return cairosvg.svg2pdf(bytestring=svg, scale=scale)
