"""A tiny Ollama look-alike on 127.0.0.1 that the real Ollama backend talks to in tests.

It speaks the parts of the HTTP API the gateway uses (/api/tags, /api/chat with NDJSON
streaming, /api/embed) and plays back whatever a test scripts: answer parts, delays
between them, errors, or a model that was never pulled.
"""

import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np


def part(content: str = "", *, thinking: str = "", tool_calls: list | None = None) -> dict:
    message: dict = {"role": "assistant", "content": content}
    if thinking:
        message["thinking"] = thinking
    if tool_calls:
        message["tool_calls"] = [
            {"function": {"name": name, "arguments": arguments}} for name, arguments in tool_calls
        ]
    return {"message": message, "done": False}


class FakeOllama:
    def __init__(self) -> None:
        self.models = ["gemma4:e4b", "embeddinggemma:latest"]
        self.parts: list[dict] = [part("Hello"), part(" world")]
        self.delay = 0.0  # seconds before each streamed part
        self.fail_with: tuple[int, str] | None = None
        self.cut_stream = False  # end the stream without a done part
        self.embedding_dim = 16
        self.requests: list[tuple[str, dict]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
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

    def has(self, model: str) -> bool:
        # Like Ollama: a name without a tag means its `latest` tag.
        return (model if ":" in model else f"{model}:latest") in self.models

    def vector(self, text: str) -> list[float]:
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")
        return np.random.default_rng(seed).normal(size=self.embedding_dim).tolist()

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # the body ends when the connection closes

            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                fake.requests.append((self.path, {}))
                if self.path == "/api/tags":
                    models = [{"name": name, "model": name} for name in fake.models]
                    self._json(200, {"models": models})
                else:
                    self._json(404, {"error": "not found"})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append((self.path, body))
                if fake.fail_with:
                    status, message = fake.fail_with
                    self._json(status, {"error": message})
                elif not fake.has(body.get("model", "")):
                    message = f'model "{body.get("model")}" not found, try pulling it first'
                    self._json(404, {"error": message})
                elif self.path == "/api/chat":
                    self._chat(body)
                elif self.path == "/api/embed":
                    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    vectors = [fake.vector(text) for text in inputs]
                    self._json(200, {"model": body["model"], "embeddings": vectors})
                else:
                    self._json(404, {"error": "not found"})

            def _chat(self, body: dict) -> None:
                model = body["model"]
                done = {
                    "model": model,
                    "message": {"role": "assistant", "content": ""},
                    "done": True,
                    "done_reason": "stop",
                    "prompt_eval_count": 21,
                    "eval_count": len(fake.parts),
                }
                if not body.get("stream", True):
                    message = {
                        "role": "assistant",
                        "content": "".join(p["message"]["content"] for p in fake.parts),
                        "thinking": "".join(p["message"].get("thinking", "") for p in fake.parts),
                        "tool_calls": [
                            call for p in fake.parts for call in p["message"].get("tool_calls", [])
                        ],
                    }
                    self._json(200, {**done, "message": message})
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.end_headers()
                lines = [{**p, "model": model} for p in fake.parts]
                if not fake.cut_stream:
                    lines.append(done)
                try:
                    for line in lines:
                        time.sleep(fake.delay)
                        self.wfile.write(json.dumps(line).encode() + b"\n")
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test); nothing to clean up

            def _json(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler
