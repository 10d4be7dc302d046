"""Schemathesis against the running app, from the app's own OpenAPI schema: whatever it
generates (valid and invalid paths, queries and bodies), no request gets a server error or a
status the schema does not list for its operation, and a request the schema allows is not
refused as malformed (positive_data_acceptance, with the exceptions in api_fuzzing.toml)."""

import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from apps.llm.tests.fake_ollama import FakeOllama
from tests.helpers.running_app import TEACHER, RunningApp
from tests.helpers.slowness import REPLY, scaled

pytestmark = [pytest.mark.services, pytest.mark.timeout(600)]

SCHEMATHESIS = Path(sys.executable).parent / "schemathesis"
# Which refusals of well-formed requests each operation may answer (positive_data_acceptance).
CONFIG = Path(__file__).parent / "api_fuzzing.toml"
# Fixed, so a failure comes back on the next run; enough examples per operation to reach ids
# beyond 64 bits, bodies of the wrong type and every documented error, in about a minute.
SEED = "20261201"
MAX_EXAMPLES = "15"


def post_json(app: RunningApp, path: str, body: dict, token: str | None = None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(
        app.url + path, data=json.dumps(body).encode(), headers=headers, method="POST"
    )
    with urllib.request.urlopen(request, timeout=REPLY) as response:
        return json.load(response)


def token_for(app: RunningApp, username: str, password: str) -> str:
    credentials = {"username": username, "password": password}
    return post_json(app, "/api/v1/auth/token", credentials)["token"]


@pytest.fixture(scope="module")
def tokens(start_app):
    """A teacher's and a student's token for an app whose model answers at once (with nothing
    usable for the study generators, which then answer 502)."""
    with (
        FakeOllama() as model,
        start_app(model_url=model.url, settings_module="tests.fuzzing_settings") as app,
    ):
        teacher = token_for(app, *TEACHER)
        [student] = post_json(app, "/api/v1/accounts/students", {"usernames": ["sam"]}, teacher)
        # Both tokens before any run: the runs' wrong passwords lock this address out of logins.
        student_token = token_for(app, student["username"], student["password"])
        yield app, {"student": student_token, "teacher": teacher}


def schemathesis(app: RunningApp, token: str, workdir: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            SCHEMATHESIS,
            "--config-file",
            CONFIG,
            "run",
            f"{app.url}/api/v1/openapi.json",
            "--header",
            f"Authorization: Bearer {token}",
            "--checks",
            "not_a_server_error,status_code_conformance,positive_data_acceptance",
            # Revoking a token could revoke the run's own, and every request after it would
            # only test the 401.
            "--exclude-path",
            "/api/v1/auth/tokens/{token_id}",
            "--seed",
            SEED,
            "--max-examples",
            MAX_EXAMPLES,
            # One worker: hypothesis parses lambdas' source with `ast`, which Python 3.11 cannot
            # do from two threads at once ("AST constructor recursion depth mismatch").
            "--workers",
            "1",
            # Its default of 10 s is a bug report for an app on a machine busy with other work
            # (seen in a run at load average 20): as long as any request of the end-to-end
            # tests may take; a hang still ends the test (timeout below).
            "--request-timeout",
            str(round(REPLY)),
        ],
        cwd=workdir,  # where it keeps its cache: each run starts afresh
        env={
            **os.environ,
            "SCHEMATHESIS_HOOKS": str(Path(__file__).parent / "api_fuzzing_hooks.py"),
        },
        capture_output=True,
        text=True,
        timeout=scaled(540),
    )


# The student first: the teacher's run may reset the student's password, which ends its tokens.
@pytest.mark.parametrize("who", ["student", "teacher"])
def test_no_request_gets_a_server_error_an_undocumented_status_or_a_false_refusal(
    tokens, who, tmp_path
):
    app, by_role = tokens
    run = schemathesis(app, by_role[who], tmp_path)
    summary = run.stdout[run.stdout.rfind("SUMMARY") :]
    # Its report: errors, failures, warnings, then the summary.
    report = re.search(r"=+ (ERRORS|FAILURES|WARNINGS|SUMMARY) =+", run.stdout)
    assert run.returncode == 0, run.stdout[report.start() if report else 0 :][:20_000] + run.stderr
    generated = re.search(r"(\d+) generated", summary)
    assert generated and int(generated.group(1)) > 500, summary
    assert re.search(r"Tested: (\d+)", summary).group(1) == re.search(
        r"Selected: (\d+)", summary
    ).group(1), summary
