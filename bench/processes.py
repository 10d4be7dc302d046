"""What the benchmarks that start the app's processes share besides tests/helpers/services.py:
whether a process answers, and a process's memory as the kernel counts it."""

import urllib.request
from pathlib import Path


def answers(url: str) -> bool:
    """True when `url` answers with a success."""
    try:
        with urllib.request.urlopen(url, timeout=5):
            return True
    except OSError:
        return False


def rollup(pid: int) -> dict[str, int]:
    """A process's memory in bytes from /proc/<pid>/smaps_rollup (Rss, Pss, ...)."""
    figures = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value, *_ = line.split()
        figures[name.rstrip(":")] = int(value) * 1024
    return figures
