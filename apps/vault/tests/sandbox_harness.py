"""A worker of another kind to start the reading sandbox from, for tests/test_sandbox.py:
`python -m apps.vault.tests.sandbox_harness MODES JOBS`, started as root. Mode `non-root` maps
this process to uid 1000 in a user namespace of its own, as a worker an ordinary user started;
`no-namespaces` makes unshare() fail with EPERM, as a container's default seccomp profile does.
Each job [path, format, options] is read with run_isolated; the results (or errors) are printed
as JSON, and what the sandbox logs goes to stderr."""

import errno
import json
import logging
import os
import platform
import sys
from pathlib import Path

from apps.vault.readers import ExtractionError, run_isolated
from apps.vault.readers.confine import (
    ALLOW,
    ANSWER,
    CLONE_NEWUSER,
    EQUAL,
    ERRNO,
    LOAD,
    call,
    install_filter,
)

UNSHARE = {"x86_64": 272, "aarch64": 97}
UID = 1000


def become_non_root() -> None:
    uid, gid = os.getuid(), os.getgid()
    call("unshare", CLONE_NEWUSER)
    Path("/proc/self/setgroups").write_text("deny")
    Path("/proc/self/uid_map").write_text(f"{UID} {uid} 1")
    Path("/proc/self/gid_map").write_text(f"{UID} {gid} 1")


def refuse_namespaces() -> None:
    install_filter(
        [
            (LOAD, 0, 0, 0),
            (EQUAL, 0, 1, UNSHARE[platform.machine()]),
            (ANSWER, 0, 0, ERRNO | errno.EPERM),
            (ANSWER, 0, 0, ALLOW),
        ]
    )


def main(modes: str, jobs: str) -> None:
    logging.basicConfig(stream=sys.stderr)
    try:
        if "non-root" in modes:
            become_non_root()
        if "no-namespaces" in modes:
            refuse_namespaces()
    except (OSError, KeyError) as error:
        print(json.dumps({"refused": str(error)}))
        return
    results = []
    for path, fmt, options in json.loads(jobs):
        try:
            results.append(
                run_isolated(Path(path), fmt, timeout=60, memory_mb=2048, options=options)
            )
        except ExtractionError as error:
            results.append({"error": str(error)})
    print(json.dumps({"uid": os.getuid(), "results": results}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
