"""Running an answer off the event loop: the agent's generator in a worker thread, its events
handed to asyncio through a queue.

A `Generation` belongs to the process, not to a websocket: if the browser drops, the answer
is still written and saved, and a reconnecting page sees it (live, while it is still running).
"""

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator, Callable, Iterator

from apps.chat import agent
from apps.chat.agent import Event

log = logging.getLogger(__name__)

_DONE = object()

# Answers being written in this process, by chat thread id: one at a time per thread.
running: dict[int, "Generation"] = {}


def stop(thread_id: int) -> None:
    """Stop the answer being written in a thread, if there is one."""
    generation = running.get(thread_id)
    if generation is not None:
        generation.stop()


class Generation:
    """One answer being written by a worker thread."""

    def __init__(
        self,
        answer_id: int,
        thread_id: int,
        writer: Callable[..., Iterator[Event]] = agent.answer,
    ):
        self.answer_id = answer_id
        self.thread_id = thread_id
        self.cancel = threading.Event()
        self._writer = writer
        self._queue: asyncio.Queue = asyncio.Queue()
        self._loop = asyncio.get_running_loop()
        # What a page that connects mid-answer needs to catch up.
        self.text: list[str] = []
        self.thinking: list[str] = []
        self.sources: list[dict] = []
        running[thread_id] = self
        self.thread = threading.Thread(target=self._work, name=f"answer-{answer_id}", daemon=True)
        self.thread.start()

    def _work(self) -> None:
        put = self._loop.call_soon_threadsafe
        try:
            for event in self._writer(self.answer_id, self.cancel):
                put(self._queue.put_nowait, event)
        except Exception:  # the writer handles its own failures; this is the last resort
            log.exception("answer %s crashed", self.answer_id)
            put(self._queue.put_nowait, Event("error", "Something went wrong while answering."))
        finally:
            if running.get(self.thread_id) is self:
                del running[self.thread_id]
            # RuntimeError: the event loop is gone (shutdown); the answer is saved anyway.
            with contextlib.suppress(RuntimeError):
                put(self._queue.put_nowait, _DONE)

    def stop(self) -> None:
        self.cancel.set()

    async def events(self, *, idle: float | None = None) -> AsyncIterator[Event | None]:
        """The writer's events in order; None after `idle` seconds without one."""
        while True:
            try:
                async with asyncio.timeout(idle):  # no task per token, unlike wait_for
                    event = await self._queue.get()
            except TimeoutError:
                yield None
                continue
            if event is _DONE:
                return
            if event.type == "text":
                self.text.append(event.data)
            elif event.type == "thinking":
                self.thinking.append(event.data)
            elif event.type == "sources":
                self.sources = event.data
            yield event
