import xml.etree.ElementTree as ET
from types import SimpleNamespace

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from apps.study.mindmaps import layout as layouts
from apps.study.mindmaps import svg as svgs
from apps.study.mindmaps import tree as trees
from apps.study.models import Mindmap
from tests.helpers.isolation import assert_only_owner_can_reach

SVG = "{http://www.w3.org/2000/svg}"
WORDS = ["Zelle", "Mitochondrium", "ATP", "Photosynthese", "Licht", "Calvin-Zyklus", "🌱", "x"]


def full_tree(levels: int = 4, breadth: int = 8, label: str = "Thema") -> dict:
    def node(level: int, path: str) -> dict:
        children = (
            [node(level + 1, f"{path}.{i}") for i in range(breadth)] if level < levels else []
        )
        return {"title": f"{label} {path} " + WORDS[len(path) % len(WORDS)], "children": children}

    return trees.clean_tree(node(1, "1"))


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
    assert trees.parse_outline(text) == tree


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
    assert svgs.to_pdf(mindmap).startswith(b"%PDF")


def test_a_huge_radial_map_exports_a_bounded_png():
    mindmap = as_mindmap(full_tree(), "radial")
    png = svgs.to_png(mindmap)
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert max(width, height) <= svgs.MAX_EXPORT_PIXELS + 1


# --- Pages and API --------------------------------------------------------------------------


@pytest.fixture
def alices_map(alice) -> Mindmap:
    return Mindmap.objects.create(owner=alice, title="Zelle", tree=full_tree(levels=3, breadth=3))


@pytest.mark.django_db
def test_alice_draws_a_mindmap_from_an_outline(alice_client, alice):
    response = alice_client.post(
        "/study/mindmaps/new/", {"title": "", "outline": "# Zelle\n- Kern\n  - DNA\n- Membran\n"}
    )
    mindmap = Mindmap.objects.get(owner=alice)
    assert response.status_code == 302 and mindmap.title == "Zelle"
    page = alice_client.get(f"/study/mindmaps/{mindmap.pk}/").content.decode()
    assert 'id="mindmap-canvas"' in page and "<svg" in page and "DNA" in page


@pytest.mark.django_db
def test_an_empty_outline_gets_a_clear_message(alice_client):
    response = alice_client.post("/study/mindmaps/new/", {"outline": "   "})
    assert response.status_code == 400 and "Paste an outline." in response.content.decode()


@pytest.mark.django_db
def test_moving_a_node_is_saved_per_layout_and_reset_forgets_it(alice_client, alices_map):
    url = f"/study/mindmaps/{alices_map.pk}"
    moved = alice_client.post(
        f"{url}/move/", {"node": "r.1", "layout": "lr", "x": "900", "y": "-50.5"}
    )
    assert moved.status_code == 204
    alices_map.refresh_from_db()
    assert alices_map.positions == {"lr": {"r.1": [900.0, -50.5]}}
    assert 'data-id="r.1" data-w' in alice_client.get(f"{url}/").content.decode()
    assert "translate(900 -50.5)" in alice_client.get(f"{url}/").content.decode()

    radial = alice_client.post(f"{url}/layout/", {"layout": "radial"}, HTTP_HX_REQUEST="true")
    assert radial.status_code == 200 and 'data-layout="radial"' in radial.content.decode()
    assert "translate(900 -50.5)" not in radial.content.decode()

    alice_client.post(f"{url}/layout/", {"layout": "lr"})
    alice_client.post(f"{url}/reset/", HTTP_HX_REQUEST="true")
    alices_map.refresh_from_db()
    assert alices_map.positions == {}


@pytest.mark.django_db
@pytest.mark.parametrize(
    "data",
    [
        {"node": "r.99", "layout": "lr", "x": "1", "y": "1"},
        {"node": "r.1", "layout": "sideways", "x": "1", "y": "1"},
        {"node": "r.1", "layout": "lr", "x": "1e9", "y": "1"},
        {"node": "r.1", "layout": "lr", "x": "nan", "y": "1"},
        {"node": "r.1", "layout": "lr"},
    ],
)
def test_a_bad_move_is_refused(alice_client, alices_map, data):
    response = alice_client.post(f"/study/mindmaps/{alices_map.pk}/move/", data)
    assert response.status_code == 400
    alices_map.refresh_from_db()
    assert alices_map.positions == {}


@pytest.mark.django_db
def test_collapsing_a_branch_redraws_without_its_children(alice_client, alices_map):
    response = alice_client.post(
        f"/study/mindmaps/{alices_map.pk}/toggle/", {"node": "r.0"}, HTTP_HX_REQUEST="true"
    )
    page = response.content.decode()
    assert response.status_code == 200 and page.lstrip().startswith('<section id="mindmap-canvas"')
    assert 'data-id="r.0"' in page and 'data-id="r.0.0"' not in page
    alice_client.post(f"/study/mindmaps/{alices_map.pk}/toggle/", {"node": "r.0"})
    alices_map.refresh_from_db()
    assert alices_map.collapsed == []
    bad = alice_client.post(f"/study/mindmaps/{alices_map.pk}/toggle/", {"node": "x"})
    assert bad.status_code == 400


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fmt", "content_type", "magic"),
    [
        ("svg", "image/svg+xml", b"<svg"),
        ("png", "image/png", b"\x89PNG"),
        ("pdf", "application/pdf", b"%PDF"),
        ("md", "text/markdown; charset=utf-8", b"# "),
    ],
)
def test_every_export_downloads(alice_client, alices_map, fmt, content_type, magic):
    response = alice_client.get(f"/study/mindmaps/{alices_map.pk}/export.{fmt}")
    assert response.status_code == 200
    assert response["Content-Type"] == content_type
    assert response.content.startswith(magic)
    assert f'filename="zelle.{fmt}"' in response["Content-Disposition"]


@pytest.mark.django_db
def test_the_api_svg_is_the_svg_on_the_page(alice_client, alices_map):
    alices_map.move_node("r.2", "lr", 10.0, 20.0)
    api = alice_client.get(f"/api/v1/study/mindmaps/{alices_map.pk}.svg")
    assert api.status_code == 200 and api["Content-Type"] == "image/svg+xml"
    assert (
        api.content.decode()
        in alice_client.get(f"/study/mindmaps/{alices_map.pk}/").content.decode()
    )


@pytest.mark.django_db
def test_the_api_creates_a_mindmap_from_a_tree_and_moves_a_node(alice_client):
    created = alice_client.post(
        "/api/v1/study/mindmaps",
        {"tree": {"title": "Root", "children": [{"title": "A"}, {"nope": 1}]}},
        content_type="application/json",
    )
    assert created.status_code == 201
    body = created.json()
    assert body["title"] == "Root" and body["tree"]["children"] == [{"title": "A", "children": []}]
    moved = alice_client.post(
        f"/api/v1/study/mindmaps/{body['id']}/positions",
        {"node": "r.0", "x": 1.5, "y": 2},
        content_type="application/json",
    )
    assert moved.json()["positions"] == {"lr": {"r.0": [1.5, 2.0]}}
    unknown = alice_client.post(
        f"/api/v1/study/mindmaps/{body['id']}/positions",
        {"node": "r.7", "x": 1, "y": 2},
        content_type="application/json",
    )
    assert unknown.status_code == 422 and "r.7" in unknown.json()["detail"]
    patched = alice_client.patch(
        f"/api/v1/study/mindmaps/{body['id']}", {"layout": "tb"}, content_type="application/json"
    )
    assert patched.json()["layout"] == "tb"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body", [{"tree": {"title": ""}}, {"tree": []}, {"tree": "x"}, {"title": 5}]
)
def test_the_api_answers_bad_trees_with_a_json_4xx(alice_client, body):
    response = alice_client.post("/api/v1/study/mindmaps", body, content_type="application/json")
    assert 400 <= response.status_code < 500 and "detail" in response.json()


@pytest.mark.django_db
def test_bob_cannot_reach_alices_mindmap(alices_map, bob_client):
    base = f"/study/mindmaps/{alices_map.pk}"
    for url in [f"{base}/", *(f"{base}/export.{fmt}" for fmt in ("svg", "png", "pdf", "md"))]:
        assert_only_owner_can_reach(url, bob_client, ["get"])
    for url in ["layout", "reset", "toggle", "move", "rename", "delete"]:
        assert_only_owner_can_reach(f"{base}/{url}/", bob_client, ["post"])
    api = f"/api/v1/study/mindmaps/{alices_map.pk}"
    assert_only_owner_can_reach(api, bob_client, ["get", "patch", "delete"])
    assert_only_owner_can_reach(f"{api}.svg", bob_client, ["get"])
    assert bob_client.delete(f"{api}/positions").status_code == 404
    for url, body in [
        (f"{api}/positions", {"node": "r", "x": 1, "y": 1}),
        (f"{api}/collapsed", {"node": "r"}),
    ]:
        assert bob_client.post(url, body, content_type="application/json").status_code == 404
    assert bob_client.get("/api/v1/study/mindmaps").json() == []
    alices_map.refresh_from_db()
    assert alices_map.positions == {} and alices_map.collapsed == []


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


@pytest.mark.django_db
def test_the_page_says_what_was_left_out(alice_client):
    outline = "# Zelle\n" + "".join(f"- Teil {i}\n" for i in range(9))
    response = alice_client.post("/study/mindmaps/new/", {"outline": outline}, follow=True)
    assert "Left out of the mindmap" in response.content.decode()
