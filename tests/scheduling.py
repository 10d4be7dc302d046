"""How `make test` shares the suite between its processes (pytest-xdist, docs/testing.md).

The tests that use the database run in one process, in pytest-django's order, exactly as in a
run without processes: those in a rolled-back transaction first, then those that commit (they
empty the database when they end and refill it when they start, so no ordinary test may follow
one). They are fast. The others, which start servers, workers and browsers, are handed out by
file, so a module's running app starts once; both processes take them.
"""

from xdist.scheduler import LoadScopeScheduling

DATABASE = "@database"


def mark_database_tests(items) -> None:
    """In each process, after pytest-django ordered the tests: name the database tests so the
    scheduler (in the controlling process, which sees only names) keeps them together."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if item.get_closest_marker("django_db") or {"db", "transactional_db"} & set(fixtures):
            item._nodeid = item.nodeid + DATABASE


class DatabaseFirstScheduling(LoadScopeScheduling):
    def __init__(self, config, log=None) -> None:
        super().__init__(config, log)
        config.option.loadscopereorder = False  # the suite's order, not the units' sizes

    def _split_scope(self, nodeid: str) -> str:
        return DATABASE if nodeid.endswith(DATABASE) else nodeid.split("::", 1)[0]
