"""A mindmap's tree: bad nodes are dropped and limits enforced, titles cleaned, and a typed
Markdown outline read into levels, saying what it left out."""

import pytest

from apps.study.mindmaps import tree as trees

# --- The tree -------------------------------------------------------------------------------


def test_bad_nodes_are_dropped_and_limits_enforced():
    raw = {
        "title": "  Root  ",
        "note": 42,
        "children": [
            "not a node",
            {"title": ""},
            {"label": "Via label", "children": [{"name": "Via name"}]},
            *({"title": f"Child {i}"} for i in range(12)),
        ],
    }
    tree = trees.clean_tree(raw)
    assert tree["title"] == "Root"
    assert [child["title"] for child in tree["children"]][:2] == ["Via label", "Child 0"]
    assert len(tree["children"]) == trees.MAX_CHILDREN
    assert tree["children"][0]["children"] == [{"title": "Via name", "children": []}]


def test_levels_below_the_fourth_are_cut_off():
    deep = {"title": "1", "children": [{"title": "2", "children": [{"title": "3", "children": [
        {"title": "4", "children": [{"title": "5", "children": []}]}]}]}]}  # fmt: skip
    tree = trees.clean_tree(deep)
    assert max(level for _, _, level, _ in trees.walk(tree)) == 4


def test_a_tree_without_a_titled_root_is_refused():
    for raw in [None, [], "text", {"children": [{"title": "orphan"}]}, {"title": "   "}]:
        with pytest.raises(trees.MindmapError):
            trees.clean_tree(raw)


def test_long_titles_are_shortened_and_control_characters_removed():
    tree = trees.clean_tree({"title": "A\x00B\x1b" + "x" * 500})
    assert tree["title"].startswith("AB") and len(tree["title"]) == trees.MAX_TITLE
    assert tree["title"].endswith("…")


def test_the_markdown_outline_round_trips():
    tree = trees.clean_tree(
        {
            "title": "Zelle",
            "children": [
                {"title": "Organellen", "note": "im Zytoplasma", "children": [{"title": "ATP"}]},
                {"title": "Membran"},
            ],
        }
    )
    text = trees.outline(tree)
    assert text == "# Zelle\n\n- Organellen — im Zytoplasma\n  - ATP\n- Membran\n"
    assert trees.read_outline(text) == (tree, [])


def test_a_title_of_control_characters_only_is_no_title():
    assert trees.clean_text("\x08 \x1b", 100) == ""
    assert trees.clean_text("Zell\x07kern\nteilung", 100) == "Zellkern teilung"


def test_headings_are_levels_of_a_typed_outline():
    text = "# Zelle\n\n## Organellen\n### Kern\n### Mitochondrien\n## Membran\n- Lipide\n"
    tree, left_out = trees.read_outline(text)
    assert tree["title"] == "Zelle" and left_out == []
    assert [c["title"] for c in tree["children"]] == ["Organellen", "Membran"]
    assert [c["title"] for c in tree["children"][0]["children"]] == ["Kern", "Mitochondrien"]
    assert tree["children"][1]["children"][0]["title"] == "Lipide"


def test_several_top_headings_hang_under_the_fallback_root():
    tree, _ = trees.read_outline("# A\n## A1\n# B\n", "Notes")
    assert tree["title"] == "Notes"
    assert [c["title"] for c in tree["children"]] == ["A", "B"]
    assert tree["children"][0]["children"][0]["title"] == "A1"


def test_bullets_under_headings_nest_below_them():
    tree, _ = trees.read_outline("# Root\n## Topic\n- one\n  - deeper\n- two\n## Other\n1. first\n")
    topic, other = tree["children"]
    assert [c["title"] for c in topic["children"]] == ["one", "two"]
    assert topic["children"][0]["children"][0]["title"] == "deeper"
    assert other["children"][0]["title"] == "first"


def test_what_a_typed_outline_loses_is_reported():
    text = (
        "# Root\n"
        + "".join(f"- item {i}\n" for i in range(10))
        + "- a\n  - b\n    - c\n      - d\n"
    )
    text += "\nsome stray paragraph\n"
    tree, left_out = trees.read_outline(text)
    assert len(tree["children"]) == 8
    assert any("beyond 4 levels" in note for note in left_out)
    assert any("some stray paragraph" in note for note in left_out)
