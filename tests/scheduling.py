"""How `make test` shares the suite between its processes (pytest-xdist, docs/testing.md).

Each test file goes to one process as a whole, so a module's running app starts once. But
pytest-django orders the tests in three runs: those in a rolled-back transaction first, then
those that commit (they leave the database empty when they end, and refill it when they start),
then those without a database. A process that ran one file's committing tests and then another
file's ordinary tests would run those on an empty database. So each file's part of each run is a
unit of its own, and the units are handed out in the suite's order: every process runs all the
ordinary tests it gets before any committing one.
"""

from xdist.scheduler import LoadScopeScheduling


class FileRunScheduling(LoadScopeScheduling):
    def __init__(self, config, log=None) -> None:
        super().__init__(config, log)
        self.unit_of: dict[str, str] = {}

    def schedule(self) -> None:
        if self.collection is None and self.collection_is_completed:
            self.unit_of = units(next(iter(self.registered_collections.values())))
            self.config.option.loadscopereorder = False  # by size would mix the runs
        super().schedule()

    def _split_scope(self, nodeid: str) -> str:
        return self.unit_of[nodeid]


def units(collection: list[str]) -> dict[str, str]:
    """Each test's unit: its file and which stretch of the suite's order the file is in (a file's
    tests of one run stay together in pytest-django's stable sort)."""
    unit_of, stretches, previous = {}, {}, None
    for nodeid in collection:
        path = nodeid.split("::", 1)[0]
        if path != previous:
            stretches[path] = stretches.get(path, -1) + 1
            previous = path
        unit_of[nodeid] = f"{path}#{stretches[path]}"
    return unit_of
