"""Every class set test is set in tess's class "7b": the students the test asks for (alice,
bob) are in it, so what tess hands out (to her one class) reaches them and she sees their
results; `factories.classmate` adds more."""

import pytest

from tests.helpers.classes import make_class


@pytest.fixture(autouse=True)
def _in_tess_class(request) -> None:
    if "tess" not in request.fixturenames:
        return
    asked = [name for name in ("alice", "bob") if name in request.fixturenames]
    students = [request.getfixturevalue(name) for name in asked]
    make_class(request.getfixturevalue("tess"), students)
