"""A mindmap's topic tree: what a valid tree is, node ids, and the Markdown outline both ways.

Node ids are index paths: `r` is the root, `r.0` its first child, `r.0.2` that child's third.
"""

import re
import unicodedata

from apps.study.errors import MindmapError

MAX_LEVELS = 4  # the root is level 1
MAX_CHILDREN = 8
MAX_TITLE = 120
MAX_NOTE = 500
MAX_SOURCE = 200


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


BULLET = re.compile(r"^(?P<indent>[ \t]*)(?:[-*+]|\d{1,3}[.)])\s+(?P<text>.+)$")
HEADING = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<text>.+?)\s*#*\s*$")
# Sort keys of the open nodes: headings by their level, bullets below any heading by indent.
_BULLET_KEY = 100


def read_outline(text: str, fallback_title: str = "Mindmap") -> tuple[dict, list[str]]:
    """The reverse of `outline`, and more: headings (`#`, `##`, `###` …) are levels as well as
    nested `-`/`*`/`1.` bullets (any consistent indent) under them; a lone `# Title` first is
    the root; a plain line right after a node (or after the root's
    heading) is its note. Returns the tree and what was left out
    (lines that are none of these, nodes beyond the levels and children a mindmap keeps),
    so the page can say so."""
    lines = text.splitlines()
    headings = [HEADING.match(line) for line in lines]
    levels = [len(m["hashes"]) for m in headings if m]
    titled = bool(levels) and levels[0] == 1 and levels.count(1) == 1 and bool(headings[0])
    top = min((level for level in levels if not (titled and level == 1)), default=2)
    root: dict = {"title": fallback_title, "children": []}
    stack: list[tuple[int, dict]] = [(-1, root)]
    last: dict | None = None
    unused: list[str] = []
    for number, line in enumerate(lines):
        heading, bullet = headings[number], BULLET.match(line)
        if titled and heading and len(heading["hashes"]) == 1:
            root["title"], last = heading["text"].strip() or fallback_title, root
            continue
        if heading:
            key, title = len(heading["hashes"]) - top, heading["text"]
        elif bullet:
            key, title = _BULLET_KEY + len(bullet["indent"].expandtabs(4)), bullet["text"]
        elif line.strip() and last is not None and "note" not in last:
            last["note"] = line.strip()
            continue
        else:
            if line.strip():
                unused.append(line.strip())
            elif last is not root:  # a note follows its node directly (the root's may not)
                last = None
            continue
        title, _, note = title.partition(" — ")
        node = {"title": title, "children": []}
        if note:
            node["note"] = note
        while stack[-1][0] >= key:
            stack.pop()
        stack[-1][1]["children"].append(node)
        stack.append((key, node))
        last = node
    tree = clean_tree(root)
    left_out = [f"not part of the outline: {line}" for line in unused]
    dropped = _count(root) - _count(tree)
    if dropped:
        left_out.append(
            f"{dropped} item{'s' if dropped != 1 else ''} beyond {MAX_LEVELS} levels or "
            f"{MAX_CHILDREN} children per item (or without a title)"
        )
    return tree, left_out


def _count(node: dict) -> int:
    return 1 + sum(_count(child) for child in node.get("children", []))


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
