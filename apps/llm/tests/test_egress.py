import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from apps.llm import egress

ROOT = Path(__file__).resolve().parents[3]

# Runs in a child process whose socket.connect never reaches the kernel: the hook under test
# wraps a stand-in that refuses every connection, so no packet leaves the machine.
CHILD = textwrap.dedent(
    """
    import socket, sys
    from pathlib import Path
    from apps.llm import egress

    attempts = []

    def refuse(sock, address):
        attempts.append(address)
        raise ConnectionRefusedError("no traffic in tests")

    socket.socket.connect = refuse
    egress.install(lambda: Path(sys.argv[1]), allowed={("198.51.100.7", 11434)}, role="test")

    def try_connect(address, family=socket.AF_INET):
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            try:
                sock.connect(address)
            except ConnectionRefusedError:
                pass

    try_connect(("203.0.113.9", 443))
    try_connect(("127.0.0.1", 9))
    try_connect(("::1", 9, 0, 0), socket.AF_INET6)
    try_connect(("localhost", 9))
    try_connect(("198.51.100.7", 11434))
    try_connect(("192.168.1.20", 80))
    with egress.user_requested("https://example.org/article", 7):
        try_connect(("203.0.113.80", 443))
    print(len(attempts))
    """
)


def run_child(record: Path) -> str:
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(record)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return result.stdout.strip()


def test_it_records_outbound_connections_and_flags_the_external_one(tmp_path):
    record = tmp_path / "connections.jsonl"

    attempts = run_child(record)

    seen = [(c.host, c.port, c.kind, c.detail) for c in egress.read(record)]
    assert attempts == "7"  # every connect still reached the (stand-in) socket
    assert seen == [
        ("203.0.113.9", 443, "external", ""),
        ("198.51.100.7", 11434, "ollama", ""),
        ("192.168.1.20", 80, "lan", ""),
        ("203.0.113.80", 443, "url-import", "https://example.org/article"),
    ]
    assert [c.flagged for c in egress.read(record)] == [True, False, False, False]
    # The import is the person's who asked for it (the privacy page shows it only to them).
    assert [c.user_id for c in egress.read(record)] == [None, None, None, 7]


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost", "::ffff:127.0.0.1", "0.0.0.0"]
)
def test_loopback_is_never_recorded(host):
    assert egress.classify(host, 80, set()) is None


@pytest.mark.parametrize(
    ("host", "kind"),
    [
        ("10.1.2.3", "lan"),
        ("172.20.0.5", "lan"),
        ("fe80::1", "lan"),
        ("8.8.8.8", "external"),
        ("2001:4860:4860::8888", "external"),
        ("example.org", "external"),
    ],
)
def test_destinations_are_classified(host, kind):
    assert egress.classify(host, 443, set()) == kind


def test_a_damaged_record_line_is_skipped(tmp_path):
    record = tmp_path / "connections.jsonl"
    record.write_text(
        'not json\n{"at": 1, "pid": 2, "role": "web", "host": "8.8.8.8", '
        '"port": 53, "kind": "external", "detail": ""}\n'
    )

    assert [c.host for c in egress.read(record)] == ["8.8.8.8"]
