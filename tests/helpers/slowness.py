"""How much slower than an idle machine this one runs the tests, as one factor every deadline of
the end-to-end tests is multiplied by (docs/testing.md#on-a-busy-machine).

The tests wait on events (a port that answers, a line in a log, a fragment on the page); a
deadline only ends a run that is broken. It is `TEST_SLOWNESS` when set, otherwise measured as
the process starts: the load average per core, since on a machine busy with other work each of
the tests' processes gets about that share of a core."""

import os

# Past this a measured factor is left to TEST_SLOWNESS: a run that is broken still ends.
MEASURED_AT_MOST = 10.0


def measured() -> float:
    """The run queue per core over the last one and five minutes, the larger, at least 1."""
    per_core = max(os.getloadavg()[:2]) / (os.cpu_count() or 1)
    return min(max(per_core, 1.0), MEASURED_AT_MOST)


SLOWNESS = float(os.environ.get("TEST_SLOWNESS") or 0) or measured()


def scaled(seconds: float) -> float:
    return seconds * SLOWNESS


def scaled_ms(seconds: float) -> float:
    """In milliseconds, as Playwright takes its timeouts."""
    return scaled(seconds) * 1000


# How long a request to an app the tests started may take to be answered, status line and body.
REPLY = scaled(60)
# Playwright's deadline for an action (a click, a navigation) and for an `expect` to come true:
# its own 30 s for actions, the same for a fragment a worker's job swaps into the page.
BROWSER_MS = scaled_ms(30)
