"""The instant tests pin the clock at (the `midday` fixture, or time_machine with it)."""

from datetime import UTC, datetime

# An ordinary Wednesday at noon UTC: no hour badge (night owl, early bird), no midnight and no
# DST change near it in any zone the tests use.
MIDDAY = datetime(2026, 4, 15, 12, 0, tzinfo=UTC)
