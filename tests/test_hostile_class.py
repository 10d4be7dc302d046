"""The class that wants good scores and has a few students who want to break things, on the
real parts (daphne, the jobs and chat workers, Redis, a fake model server, Whisper): while 3
students loop attachments of blank scans, ask in ten chats at once, send 110-second recordings to
transcribe, re-ingest and send bodies over the upload limit, 5 others take the handed-out quiz
and ask a question each. Nothing of theirs is lost, and the attackers are refused
(docs/classroom.md#a-fair-share-of-the-machine). The figures with and without the attackers:
bench/bench_hostile_class.py."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from apps.llm.tests.fake_ollama import FakeOllama
from tests.helpers.hostile_class import (
    ANSWER_WORDS,
    LIMITS,
    arm,
    attack,
    learn,
    names,
    setup_code,
    talk,
)
from tests.helpers.slowness import scaled

pytestmark = pytest.mark.services

STUDENTS, ATTACKERS = names("student", 5), names("attacker", 3)
# Past every limit of LIMITS (4 attachments and recordings, 2 re-ingestions); a round takes a
# dozen seconds once the door gives each refusal a second late.
ROUNDS = 5
RECORDED_ATTEMPTS = """
from apps.study.models import Attempt
graded = Attempt.objects.filter(correct__isnull=False).order_by("user__username")
print(*graded.values_list("user__username", flat=True))
"""


@pytest.fixture(scope="module")
def hostile_class(start_app):
    with FakeOllama(talk) as model, pytest.MonkeyPatch.context() as patch:
        model.delay = 0.02
        for name, value in LIMITS.items():
            patch.setenv(name, value)
        with start_app(model_url=model.url, setup=setup_code(STUDENTS, ATTACKERS)) as app:
            yield app


def test_the_class_loses_nothing_while_three_students_attack_and_are_refused(hostile_class):
    url, stop = hostile_class.url, threading.Event()
    with ThreadPoolExecutor(len(ATTACKERS) + len(STUDENTS)) as pool:
        armed = pool.map(arm, [url] * len(ATTACKERS), ATTACKERS)
        attacks = [pool.submit(attack, attacker, stop, ROUNDS) for attacker in armed]
        learned = [pool.submit(learn, url, name) for name in STUDENTS]
        try:
            learned = [future.result(timeout=scaled(300)) for future in learned]
        finally:
            stop.set()
        seen = [future.result(timeout=scaled(120)) for future in attacks]

    everything = "".join(f"word{i} " for i in range(ANSWER_WORDS))
    for one in learned:
        assert one.attempt == 201
        assert one.answer["status"] == "done" and one.answer["content"] == everything
    recorded = hostile_class.manage("shell", "--no-imports", "-c", RECORDED_ATTEMPTS)
    assert recorded.split() == sorted(STUDENTS)
    for statuses in seen:  # each attacker: ROUNDS or more, past every limit
        assert statuses["chat", 429] > statuses["chat", 200] > 0
        assert statuses["attachment", 429] > 0 and statuses["reingest", 429] > 0
        # One recording at a time each, and 4 an hour: the jobs worker transcribes few of them.
        assert statuses["voice", 429] > statuses["voice", 202] > 0
        assert {status for kind, status in statuses if kind == "oversized"} == {413}
