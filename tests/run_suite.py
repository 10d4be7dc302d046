"""`make test`: the suite as two pytest sessions at once (docs/testing.md#two-sessions-at-once).

The end-to-end tests (markers `services` and `browser`) spend most of their time waiting on the
servers, workers and browsers they start, so they run in processes of pytest-xdist of their own,
a file to each in turn, beside the other tests. Those stay in one session in pytest-django's
order: its tests that commit run last, since they leave the database empty, and handing their
files to processes would break that. No end-to-end test uses the test session's database.

`python tests/run_suite.py [--processes N] [pytest arguments]`; a `-m` among them narrows both
sessions. Each session's output is printed whole, the end-to-end one's second.
"""

import argparse
import subprocess
import sys
import tempfile

END_TO_END = "services or browser"
NO_TESTS = 5  # pytest's exit code when the selection is empty


def pytest(marks: str, narrowed_by: str | None, args: list[str]) -> list[str]:
    expression = f"({marks}) and ({narrowed_by})" if narrowed_by else marks
    return [sys.executable, "-m", "pytest", "-m", expression, *args]


def outcome(codes: list[int]) -> int:
    """Failed if either session failed; "no tests" only if neither had any."""
    failed = [code for code in codes if code not in (0, NO_TESTS)]
    if failed:
        return failed[0]
    return NO_TESTS if all(code == NO_TESTS for code in codes) else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--processes", type=int, default=2, help="end-to-end test processes")
    parser.add_argument("-m", dest="marks", help="a marker expression narrowing both sessions")
    options, args = parser.parse_known_args()
    by_file = ["-n", str(options.processes), "--dist", "loadfile"]
    with tempfile.TemporaryFile("w+") as output:
        end_to_end = subprocess.Popen(
            pytest(END_TO_END, options.marks, [*args, *by_file]),
            stdout=output,
            stderr=subprocess.STDOUT,
        )
        try:
            codes = [subprocess.call(pytest(f"not ({END_TO_END})", options.marks, args))]
            print("\nWaiting for the end-to-end tests...", flush=True)
        finally:
            codes.append(end_to_end.wait())
        output.seek(0)
        print(f"The end-to-end tests, in {options.processes} processes:\n", flush=True)
        sys.stdout.write(output.read())
    return outcome(codes)


if __name__ == "__main__":
    sys.exit(main())
