"""Writing one answer in a chat worker (see tasks.py), through apps/jobs' run_claimed. The agent
runs in a thread of its own; this loop batches its events into frames (frames.py), pushes them
to the thread's group (pushes.py), saves the partial answer with a heartbeat as it grows, and
reads the stop flag. Nothing about an answer lives in a web process.
"""

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator

from django.conf import settings
from django.db import close_old_connections

from apps.chat import agent, frames, pushes
from apps.chat.agent import UNEXPECTED, Event
from apps.chat.conversation import END_PARTS, render_parts
from apps.chat.models import Message
from apps.jobs.lifecycle import run_claimed

log = logging.getLogger(__name__)

BATCH_SECONDS = 0.1  # tokens are pushed together, at most every 100 ms (the first at once)
# ...and less often when this process writes many answers at once: its frames stay near this
# many a second in all, which the web processes relay one at a time beside the pages
# (docs/architecture.md#the-socket-path-who-writes-an-answer).
FRAMES_PER_SECOND = 40
SAVE_SECONDS = 0.5  # the partial answer is saved at most this often
SNAPSHOT_SECONDS = 2.0  # ...and sent whole at most this often
HEARTBEAT_SECONDS = 2.0  # a silent model still gets a heartbeat this often
STOP_CHECK_SECONDS = 0.5
_DONE = object()

Writer = Callable[[int, threading.Event], Iterator[Event]]


def write(answer_id: int, worker: str, writer: Writer = agent.answer) -> None:
    """Write the answer `answer_id` unless another worker has it. The agent ends the message;
    the loop beats as it saves the partial answer."""
    run_claimed(
        Message.objects,
        answer_id,
        worker,
        lambda: Answer(answer_id, writer).run(),
        unexpected=UNEXPECTED,
        interrupt=pushes.interrupt,
        beat=False,
    )


class _Writing:
    """How many answers this process is writing, for the pace of their frames."""

    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()

    def add(self, step: int) -> None:
        with self.lock:
            self.count += step

    def frame_seconds(self) -> float:
        return max(BATCH_SECONDS, self.count / FRAMES_PER_SECOND)


writing = _Writing()


class Answer:
    """One answer being written: the agent's events in, pushes and saves out."""

    def __init__(self, answer_id: int, writer: Writer = agent.answer) -> None:
        self.answer_id = answer_id
        self.thread_id = Message.objects.values_list("thread_id", flat=True).get(pk=answer_id)
        self.writer = writer
        self.cancel = threading.Event()
        self.events: queue.Queue = queue.Queue()
        self.group = pushes.Group(self.thread_id)
        # What this answer has produced so far, and what is not pushed yet.
        self.text: list[str] = []
        self.thinking: list[str] = []
        self.sources: list[dict] = []
        self.pending: dict[str, list[str]] = {"text": [], "thinking": []}
        self.unsaved = False
        self.finished = False
        self.last_snapshot = time.monotonic()

    def _produce(self) -> None:
        try:
            for event in self.writer(self.answer_id, self.cancel):
                self.events.put(event)
        except Exception:  # the writer handles its own failures; this is the last resort
            log.exception("answer %s crashed", self.answer_id)
            self.events.put(Event("error", UNEXPECTED))
        finally:
            close_old_connections()
            self.events.put(_DONE)

    def run(self) -> None:
        producer = threading.Thread(target=self._produce, name=f"answer-{self.answer_id}")
        producer.start()
        writing.add(1)
        now = time.monotonic()
        last_flush = last_event = last_save = last_stop_check = now
        waiting_shown = False
        try:
            while True:
                batch = writing.frame_seconds()
                try:
                    event = self.events.get(timeout=batch)
                except queue.Empty:
                    event = None
                now = time.monotonic()
                if now - last_stop_check >= STOP_CHECK_SECONDS:
                    last_stop_check = now
                    if not self.cancel.is_set() and self._stop_requested():
                        self.cancel.set()
                if event is _DONE:
                    break
                if event is None:
                    if now - last_flush >= batch:
                        self._flush()
                        last_flush = now
                    silent = now - last_event > settings.CHAT_WAITING_SECONDS
                    if silent and not waiting_shown and not self.finished:
                        waiting_shown = True
                        self._status("Waiting for the model…", waiting=True)
                else:
                    if waiting_shown:
                        waiting_shown = False
                        self._status("")
                    last_event = now
                    if self._handle(event) or now - last_flush >= batch:
                        self._flush()
                        last_flush = now
                if now - last_save >= (SAVE_SECONDS if self.unsaved else HEARTBEAT_SECONDS):
                    self._save_partial()
                    last_save = now
            self._flush()
        except Exception:
            log.exception("relaying answer %s failed", self.answer_id)
            self.cancel.set()
        finally:
            writing.add(-1)
            producer.join()  # after "end" only progress tracking is left; else it has stopped
            if not self.finished:
                self._finish()
            self.group.close()
            close_old_connections()

    def _finish(self, lines=()) -> None:
        """The answer as saved replaces the streamed one on every page; the API stream ends."""
        self.finished = True
        html = render_parts(self.thread_id, END_PARTS, self.answer_id)
        self.group.push(self.answer_id, html, lines, final=True)

    def _handle(self, event: Event) -> bool:
        """Take one event; True when it must go out now (with the tokens before it)."""
        if self.cancel.is_set() and event.type in ("text", "thinking"):
            return False  # stopped: the rest is neither shown nor saved by the agent
        if event.type in self.pending:
            received = self.text if event.type == "text" else self.thinking
            first = not received  # the first words go out at once, the rest in batches
            self.pending[event.type].append(event.data)
            received.append(event.data)
            self.unsaved = True
            return first
        self._flush()
        if event.type == "sources":
            self.sources = event.data
            self.unsaved = True
        line = frames.api_line(event)
        if event.type == "end":
            self._finish([line])
        else:
            html = frames.event_html(self.answer_id, event)
            self.group.push(self.answer_id, html, [line] if line else [])
        return True

    def _flush(self) -> None:
        """One frame for the tokens that arrived since the last one."""
        html, lines = frames.tokens(self.answer_id, self.pending)
        if html:
            self.group.push(self.answer_id, html, lines)
        for pending in self.pending.values():
            pending.clear()

    def _status(self, notice: str, waiting: bool = False) -> None:
        self.group.push(self.answer_id, frames.status_html(self.answer_id, notice, waiting))

    def _stop_requested(self) -> bool:
        flag = Message.objects.filter(pk=self.answer_id).values_list("stop_requested", flat=True)
        stop = flag.first()
        return stop is None or stop  # a deleted answer stops too

    def _save_partial(self) -> None:
        """Save what there is so far with a heartbeat, and now and then send it whole: a page
        that joined between two saves (a reconnect, a restarted web server) missed or repeated
        a few words, and is exact again from that frame on."""
        if self.finished:
            return  # saved by the agent, and shown whole already
        text, thinking = "".join(self.text), "".join(self.thinking)
        fields = {"content": text, "thinking": thinking, "citations": self.sources}
        Message.objects.beat(self.answer_id, **(fields if self.unsaved else {}))
        if self.unsaved and time.monotonic() - self.last_snapshot >= SNAPSHOT_SECONDS:
            self.last_snapshot = time.monotonic()
            self._flush()
            self.group.push(self.answer_id, frames.snapshot_html(self.answer_id, text, thinking))
        self.unsaved = False
