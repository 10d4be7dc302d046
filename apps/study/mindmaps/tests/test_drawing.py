"""Drawing a mindmap: every layout places the boxes without overlaps inside the view box, and the
SVG, PNG and PDF drawn from it are well formed."""

import xml.etree.ElementTree as ET
from types import SimpleNamespace

import pymupdf
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from apps.study.mindmaps import layout as layouts
from apps.study.mindmaps import svg as svgs
from apps.study.mindmaps import tree as trees
from apps.study.mindmaps.tests.examples import full_tree

SVG = "{http://www.w3.org/2000/svg}"


def overlaps(a: layouts.Box, b: layouts.Box) -> bool:
    return (
        a.left < b.left + b.w
        and b.left < a.left + a.w
        and a.top < b.top + b.h
        and b.top < a.top + a.h
    )


def assert_no_overlaps(drawing: layouts.Drawing) -> None:
    boxes = sorted(drawing.boxes, key=lambda box: box.left)
    # Sweep along x: only boxes whose x ranges meet need the full check.
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if b.left >= a.left + a.w:
                break
            assert not overlaps(a, b), f"{a.id} overlaps {b.id}"


def assert_inside_view_box(drawing: layouts.Drawing) -> None:
    x, y, w, h = drawing.view_box
    for box in drawing.boxes:
        assert x <= box.left and box.left + box.w <= x + w, box.id
        assert y <= box.top and box.top + box.h <= y + h, box.id


def as_mindmap(tree: dict, layout: str = "lr", **fields) -> SimpleNamespace:
    fields.setdefault("positions", {})
    fields.setdefault("collapsed", [])
    return SimpleNamespace(
        title=fields.pop("title", tree["title"]), tree=tree, layout=layout, **fields
    )


# --- Layout properties ----------------------------------------------------------------------


@pytest.mark.parametrize("layout", layouts.LAYOUTS)
def test_a_full_tree_of_four_levels_by_eight_children_has_no_overlaps(layout):
    drawing = layouts.draw(full_tree(), layout)
    assert len(drawing.boxes) == 1 + 8 + 64 + 512
    assert_no_overlaps(drawing)
    assert_inside_view_box(drawing)


def random_trees(max_levels: int = 4):
    title = st.text(
        alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=80
    ).filter(lambda t: t.strip())
    leaf = st.fixed_dictionaries({"title": title})
    return st.recursive(
        leaf,
        lambda children: st.fixed_dictionaries(
            {"title": title, "children": st.lists(children, max_size=8)}
        ),
        max_leaves=60,
    )


@settings(max_examples=60, deadline=None)
@given(raw=random_trees(), layout=st.sampled_from(layouts.LAYOUTS))
def test_generated_trees_never_overlap_and_stay_inside_the_view_box(raw, layout):
    try:
        tree = trees.clean_tree(raw)
    except trees.MindmapError:  # a root of control characters only has no title left
        assume(False)
    drawing = layouts.draw(tree, layout)
    assert_no_overlaps(drawing)
    assert_inside_view_box(drawing)


def test_siblings_keep_their_order_along_the_breadth_axis():
    tree = full_tree(levels=3, breadth=5)
    lr = {box.id: box for box in layouts.draw(tree, "lr").boxes}
    tb = {box.id: box for box in layouts.draw(tree, "tb").boxes}
    ys = [lr[f"r.{i}"].y for i in range(5)]
    xs = [tb[f"r.{i}"].x for i in range(5)]
    assert ys == sorted(ys) and xs == sorted(xs)
    # Levels are columns left to right and rows top to bottom.
    assert lr["r"].x < lr["r.0"].x < lr["r.0.0"].x
    assert tb["r"].y < tb["r.0"].y < tb["r.0.0"].y


def test_a_parent_is_centred_over_its_children():
    drawing = {box.id: box for box in layouts.draw(full_tree(levels=2, breadth=4), "tb").boxes}
    assert drawing["r"].x == pytest.approx((drawing["r.0"].x + drawing["r.3"].x) / 2, abs=0.1)


def test_layout_and_svg_are_deterministic():
    tree = full_tree(levels=3, breadth=6)
    for layout in layouts.LAYOUTS:
        first = svgs.render_svg(as_mindmap(tree, layout))
        assert all(svgs.render_svg(as_mindmap(tree, layout)) == first for _ in range(3))


def test_labels_wrap_inside_boxes_sized_to_the_text():
    short = layouts.make_box("r.0", {"title": "ATP"}, 2, "r", leaf=True)
    long = layouts.make_box(
        "r.1", {"title": "Die Atmungskette in der Mitochondrienmembran " * 2}, 2, "r", leaf=True
    )
    assert len(short.lines) == 1 and short.w < 80
    assert len(long.lines) > 1
    style = layouts.STYLE["leaf"]
    for line in long.lines:
        assert layouts.text_width(line, style["font"] * style["bold"]) <= style["max_width"]
    assert long.w <= style["max_width"] + 2 * style["pad_x"]
    assert long.h > short.h


def test_root_topic_and_leaf_get_their_own_style():
    tree = trees.clean_tree(
        {"title": "R", "children": [{"title": "T", "children": [{"title": "L"}]}]}
    )
    kinds = {box.id: box.kind for box in layouts.draw(tree).boxes}
    assert kinds == {"r": "root", "r.0": "topic", "r.0.0": "leaf"}


def test_a_dragged_node_is_drawn_where_it_was_left_and_the_view_box_follows():
    tree = full_tree(levels=2, breadth=3)
    drawing = layouts.draw(tree, "lr", positions={"r.1": [5000.0, -3000.0]})
    moved = next(box for box in drawing.boxes if box.id == "r.1")
    assert (moved.x, moved.y) == (5000.0, -3000.0)
    assert_inside_view_box(drawing)
    edge = next(path for parent, child, path in drawing.edges if child.id == "r.1")
    assert edge.endswith(f"{5000 - moved.w / 2:.1f},-3000.0")


def test_a_collapsed_branch_hides_its_subtree_but_keeps_its_box():
    tree = full_tree(levels=3, breadth=3)
    drawing = layouts.draw(tree, "lr", collapsed=["r.0"])
    ids = {box.id for box in drawing.boxes}
    assert "r.0" in ids and not any(i.startswith("r.0.") for i in ids)
    folded = next(box for box in drawing.boxes if box.id == "r.0")
    assert folded.hidden_children == 3


# --- SVG ------------------------------------------------------------------------------------


def test_the_svg_parses_and_escapes_angle_brackets_ampersands_quotes_and_emoji():
    nasty = "a < b & \"c\" 'd' 🌱 </text><script>alert(1)</script>"
    tree = trees.clean_tree(
        {"title": nasty, "note": "1 & 2 < 3", "children": [{"title": "👩‍🔬 Kind"}]}
    )
    svg = svgs.render_svg(as_mindmap(tree, title=nasty))
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    assert "<script" not in svg and "&lt;script&gt;" in svg
    texts = "".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "a < b & \"c\" 'd' 🌱" in texts
    assert "👩‍🔬 Kind" in texts
    assert root.get("aria-label") == nasty
    titles = [t.text for t in root.iter(f"{SVG}title")]
    assert "1 & 2 < 3" in titles


def test_the_svg_has_one_group_per_visible_node_and_one_path_per_edge():
    tree = full_tree(levels=3, breadth=3)
    root = ET.fromstring(svgs.render_svg(as_mindmap(tree, "radial")))
    nodes = [g for g in root.iter(f"{SVG}g") if "mm-node" in (g.get("class") or "").split()]
    edges = [p for p in root.iter(f"{SVG}path") if p.get("class") == "mm-edge"]
    assert len(nodes) == 13 and len(edges) == 12
    assert {g.get("class").split()[1] for g in nodes} == {"mm-root", "mm-topic", "mm-leaf"}


def test_the_svg_knows_light_and_dark():
    svg = svgs.render_svg(as_mindmap(full_tree(levels=2, breadth=2)))
    assert "prefers-color-scheme: dark" in svg and '[data-theme="dark"]' in svg


def test_png_and_pdf_exports_are_real_files(tmp_path):
    tree = full_tree(levels=2, breadth=4)
    mindmap = as_mindmap(tree, "tb")
    png = svgs.to_png(mindmap)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width = int.from_bytes(png[16:20], "big")
    assert width == pytest.approx(2 * layouts.draw(tree, "tb").view_box[2], abs=2)
    pdf = pymupdf.open(stream=svgs.to_pdf(mindmap), filetype="pdf")
    # One A4 page, across for a map wider than tall, without the buttons that fold a branch.
    assert pdf.page_count == 1
    assert (round(pdf[0].rect.width), round(pdf[0].rect.height)) == (842, 595)
    assert "Thema 1.0" in pdf[0].get_text() and "−" not in pdf[0].get_text()
    assert "mm-toggle" in svgs.render_svg(mindmap)  # on the page
    assert 'class="mm-toggle"' not in svgs.render_svg(mindmap, controls=False)


def test_a_huge_radial_map_exports_a_bounded_png():
    mindmap = as_mindmap(full_tree(), "radial")
    png = svgs.to_png(mindmap)
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert max(width, height) <= svgs.MAX_EXPORT_PIXELS + 1
