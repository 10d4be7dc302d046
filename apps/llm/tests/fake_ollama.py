"""A tiny Ollama look-alike on 127.0.0.1 that the real Ollama backend talks to in tests.

It speaks the parts of the HTTP API the gateway uses (/api/tags, /api/chat with NDJSON
streaming, /api/embed) and plays back whatever a test scripts: fixed answer parts or a
`script(body)` that answers each chat request on its own, delays, a slow first token, a model
held until the test lets it answer, garbage, errors, a stream cut short, or a model that was
never pulled.

Run as a program it serves until killed, for browser tests and benchmarks:
`python -m apps.llm.tests.fake_ollama PORT [--delay S] [--script module:function]
[--embedding 1,0,0]`.
"""

import argparse
import hashlib
import importlib
import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

Script = Callable[[dict], list[dict]]


def part(content: str = "", *, thinking: str = "", tool_calls: list | None = None) -> dict:
    message: dict = {"role": "assistant", "content": content}
    if thinking:
        message["thinking"] = thinking
    if tool_calls:
        message["tool_calls"] = [
            {"function": {"name": name, "arguments": arguments}} for name, arguments in tool_calls
        ]
    return {"message": message, "done": False}


def words(text: str) -> list[dict]:
    """The text as a model streams it: one part per word."""
    pieces = text.split(" ")
    return [part(piece if i == 0 else " " + piece) for i, piece in enumerate(pieces)]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # A class of clients connecting at once (benchmarks): more than the default 5 may wait.
    request_queue_size = 128

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client that hung up is fine
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    """Answers as Ollama would, from the FakeOllama it is bound to (`fake`)."""

    fake: "FakeOllama"
    protocol_version = "HTTP/1.0"  # the body ends when the connection closes

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        self.fake.requests.append((self.path, {}))
        if self.path == "/api/tags":
            self.fake.listing.wait()
            models = [{"name": name, "model": name} for name in self.fake.models]
            self._json(200, {"models": models})
        else:
            self._json(404, {"error": "not found"})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self.fake.requests.append((self.path, body))
        if self.fake.fail_with:
            status, message = self.fake.fail_with
            self._json(status, {"error": message})
        elif not self.fake.has(body.get("model", "")):
            message = f'model "{body.get("model")}" not found, try pulling it first'
            self._json(404, {"error": message})
        elif self.path == "/api/chat":
            self._chat(body)
        elif self.path == "/api/embed":
            inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
            vectors = [self.fake.vector(text) for text in inputs]
            time.sleep(self.fake.embed_delay)
            self._json(200, {"model": body["model"], "embeddings": vectors})
        else:
            self._json(404, {"error": "not found"})

    def _chat(self, body: dict) -> None:
        model = body["model"]
        parts = self.fake.answer_parts(body)
        done = {
            "model": model,
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": 21,
            "eval_count": len(parts),
        }
        if not body.get("stream", True):
            message = {
                "role": "assistant",
                "content": "".join(p["message"]["content"] for p in parts),
                "thinking": "".join(p["message"].get("thinking", "") for p in parts),
                "tool_calls": [call for p in parts for call in p["message"].get("tool_calls", [])],
            }
            self._json(200, {**done, "message": message})
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.end_headers()
        if self.fake.garbage:
            self.wfile.write(b"{not json at all\n")
            return
        lines = [{**p, "model": model} for p in parts]
        if not self.fake.cut_stream:
            lines.append(done)
        try:
            self.fake.answering.wait()
            time.sleep(self.fake.first_delay)
            for line in lines:
                time.sleep(self.fake.delay)
                self.wfile.write(json.dumps(line).encode() + b"\n")
                self.wfile.flush()
        except ConnectionError:
            pass  # the client gave up (stop, a timeout test); nothing to clean up

    def _json(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class FakeOllama:
    def __init__(self, script: Script | None = None, *, port: int = 0) -> None:
        self.models = ["gemma4:e4b", "embeddinggemma:latest"]
        self.parts: list[dict] = [part("Hello"), part(" world")]
        self.script = script  # answers each chat request; None: the same `parts` every time
        self.delay = 0.0  # seconds before each streamed part
        self.first_delay = 0.0  # seconds before the first part (a slow model)
        # Set: chat streams flow. Cleared (`held()`), they wait before their first part until
        # it is set again, so a test sees what a page shows while a worker waits on the model.
        self.answering = threading.Event()
        self.answering.set()
        self.listing = threading.Event()  # the same for the model list (/api/tags)
        self.listing.set()
        self.embed_delay = 0.0  # seconds before each /api/embed answer
        self.garbage = False  # a chat stream that is not NDJSON at all
        self.fail_with: tuple[int, str] | None = None
        self.cut_stream = False  # end the stream without a done part
        self.embedding_dim = 16
        self.embedding: list[float] | None = None  # one vector for every text, if set
        self.requests: list[tuple[str, dict]] = []
        self._server = _Server(("127.0.0.1", port), self._handler())
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "FakeOllama":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "FakeOllama":
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def serve(self, settings, **more_settings) -> Iterator["FakeOllama"]:
        """For a fixture (`yield from FakeOllama().serve(settings)`): the gateway's Ollama
        backend pointed at this server, without backoff, for one test."""
        with self:
            settings.OLLAMA_HOST = self.url
            settings.LLM_BACKEND = "ollama"
            settings.EMBEDDING_BACKEND = "ollama"
            settings.OLLAMA_BACKOFF_SECONDS = 0
            for name, value in more_settings.items():
                setattr(settings, name, value)
            yield self

    @contextmanager
    def held(self) -> Iterator["FakeOllama"]:
        """Chat streams wait before their first part until the block ends."""
        self.answering.clear()
        try:
            yield self
        finally:
            self.answering.set()

    @property
    def chats(self) -> list[dict]:
        """The body of every /api/chat request so far."""
        return [body for path, body in self.requests if path == "/api/chat"]

    def embedded_texts(self) -> list[str]:
        """Every text the model was asked to embed, except the gateway's dimension probe."""
        return [
            text
            for path, body in list(self.requests)
            if path == "/api/embed"
            for text in (body["input"] if isinstance(body["input"], list) else [body["input"]])
            if text != "dimension probe"
        ]

    def has(self, model: str) -> bool:
        # Like Ollama: a name without a tag means its `latest` tag.
        return (model if ":" in model else f"{model}:latest") in self.models

    def vector(self, text: str) -> list[float]:
        if self.embedding is not None:
            return list(self.embedding)
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")
        return np.random.default_rng(seed).normal(size=self.embedding_dim).tolist()

    def answer_parts(self, body: dict) -> list[dict]:
        return self.script(body) if self.script else self.parts

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        return type("Handler", (_Handler,), {"fake": self})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m apps.llm.tests.fake_ollama")
    parser.add_argument("port", type=int)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before each part")
    parser.add_argument("--script", help="module:function answering each chat request")
    parser.add_argument("--embedding", help="one vector for every text, e.g. 1,0,0")
    args = parser.parse_args(argv)
    script = None
    if args.script:
        module, _, name = args.script.partition(":")
        script = getattr(importlib.import_module(module), name)
    server = FakeOllama(script, port=args.port)
    server.delay = args.delay
    if args.embedding:
        server.embedding = [float(x) for x in args.embedding.split(",")]
    print(server.url, flush=True)
    server._server.serve_forever(poll_interval=0.05)


if __name__ == "__main__":
    main()
