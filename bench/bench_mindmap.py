"""Mindmaps: time to lay out and draw a tree as SVG, per layout and tree size, and the PNG/PDF
exports; FSRS: time to schedule one answer. Medians of repeated runs."""

import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["DATA_DIR"] = tempfile.mkdtemp(prefix="bench-mindmap-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cognivault_site.settings")

import django  # noqa: E402

django.setup()

import fsrs  # noqa: E402

from apps.study.flashcards import scheduling  # noqa: E402
from apps.study.mindmaps import layout as layouts  # noqa: E402
from apps.study.mindmaps import svg  # noqa: E402
from apps.study.mindmaps import tree as trees  # noqa: E402

REPEATS = 7


def tree(levels: int, breadth: int) -> dict:
    def node(level: int, path: str) -> dict:
        children = (
            [node(level + 1, f"{path}.{i}") for i in range(breadth)] if level < levels else []
        )
        return {"title": f"Thema {path} mit einem Namen", "children": children}

    return trees.clean_tree(node(1, "1"))


def median_ms(work) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    print(f"## Mindmap drawing (median of {REPEATS} runs)\n")
    print("| tree | nodes | layout | layout + SVG (ms) | SVG size (kB) | ms per node |")
    print("| --- | ---: | --- | ---: | ---: | ---: |")
    for levels, breadth in [(3, 5), (3, 8), (4, 8)]:
        t = tree(levels, breadth)
        nodes = sum(1 for _ in trees.walk(t))
        for layout in layouts.LAYOUTS:
            m = SimpleNamespace(title="Bench", tree=t, layout=layout, positions={}, collapsed=[])
            ms = median_ms(lambda m=m: svg.render_svg(m))
            size = len(svg.render_svg(m).encode()) / 1000
            print(
                f"| {levels} levels × {breadth} | {nodes} | {layout} | {ms:.1f} | {size:.0f} "
                f"| {ms / nodes:.3f} |"
            )
    print()
    m = SimpleNamespace(title="Bench", tree=tree(3, 8), layout="lr", positions={}, collapsed=[])
    print("| export (3 levels × 8, lr) | median (ms) |")
    print("| --- | ---: |")
    print(f"| PNG | {median_ms(lambda: svg.to_png(m)):.0f} |")
    print(f"| PDF | {median_ms(lambda: svg.to_pdf(m)):.0f} |")
    print()
    card = fsrs.Card(card_id=1)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    runs = 2000
    start = time.perf_counter()
    for _ in range(runs):
        scheduling.SCHEDULER.review_card(card, fsrs.Rating.Good, now)
    per = (time.perf_counter() - start) / runs * 1e6
    print("| FSRS scheduling | µs per answer |")
    print("| --- | ---: |")
    print(f"| review_card (Good) | {per:.0f} |")


if __name__ == "__main__":
    main()
