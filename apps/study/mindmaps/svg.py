"""A mindmap drawn as SVG (the page shows the very same markup), and its PNG and PDF exports."""

from collections.abc import Collection

from django.template.loader import render_to_string

from apps.study.mindmaps.layout import LINE_HEIGHT, Drawing, draw

MAX_EXPORT_PIXELS = 4000
A4_POINTS = (595.28, 841.89)  # width, height of the PDF export's page


def drawing_for(mindmap) -> Drawing:
    """The mindmap in its saved layout, with the nodes dragged in that layout where left."""
    positions = (mindmap.positions or {}).get(mindmap.layout, {})
    return draw(mindmap.tree, mindmap.layout, positions, mindmap.collapsed)


def render_svg(
    mindmap, drawing: Drawing | None = None, changed: Collection[str] = (), controls: bool = True
) -> str:
    """The mindmap as a standalone SVG document (the page shows the very same markup); the
    nodes in `changed` (ids whose source changed) are outlined as such, never in an export, nor
    the buttons that fold a branch (`controls`)."""
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
                "changed": box.id in changed,
                "foldable": controls and (box.hidden_children > 0 or bool(box.children)),
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


# cairosvg (Cairo, fontTools, Pillow) loads on the first export, not at start-up
# (docs/deployment.md#start-up-time).
def to_png(mindmap) -> bytes:
    import cairosvg

    drawing = drawing_for(mindmap)
    svg = render_svg(mindmap, drawing, controls=False).encode()
    return cairosvg.svg2png(bytestring=svg, scale=export_scale(drawing, MAX_EXPORT_PIXELS))


def to_pdf(mindmap) -> bytes:
    import cairosvg

    drawing = drawing_for(mindmap)
    svg = render_svg(mindmap, drawing, controls=False).encode()
    # One A4 page, across when the map is wider than tall, the map fitted inside (its viewBox
    # keeps its proportions), as a teacher prints it. Cairo's pixel is 0.75 pt.
    width, height = A4_POINTS if drawing.view_box[2] <= drawing.view_box[3] else A4_POINTS[::-1]
    return cairosvg.svg2pdf(bytestring=svg, output_width=width / 0.75, output_height=height / 0.75)
