"""How `make test` splits the suite into its two sessions (tests/run_suite.py)."""

from tests.run_suite import END_TO_END, NO_TESTS, outcome, pytest


def test_a_marker_expression_narrows_both_sessions():
    assert pytest(END_TO_END, "not browser", ["-x"])[-3:] == [
        "-m",
        "(services or browser) and (not browser)",
        "-x",
    ]
    assert pytest(f"not ({END_TO_END})", None, [])[-2:] == ["-m", "not (services or browser)"]


def test_the_suite_fails_when_either_session_fails():
    assert outcome([0, 0]) == 0
    assert outcome([1, 0]) == 1
    assert outcome([0, 2]) == 2
    assert outcome([NO_TESTS, 1]) == 1


def test_a_selection_in_one_session_only_is_not_a_failure():
    assert outcome([NO_TESTS, 0]) == 0
    assert outcome([0, NO_TESTS]) == 0
    assert outcome([NO_TESTS, NO_TESTS]) == NO_TESTS
