"""A scripted Ollama look-alike on loopback for the chat: each /api/chat request is answered
by `script(body)`, so one conversation can think, call a tool, then answer.

Run as a program (`python -m apps.chat.tests.fake_model PORT`) it serves the default script,
for the browser test and the benchmark.
"""

import json
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "gemma4:e4b"
ANSWER = "Mitochondria make ATP, the cell's energy currency [1]."


def part(content: str = "", *, thinking: str = "", tool_calls=None) -> dict:
    message: dict = {"role": "assistant", "content": content}
    if thinking:
        message["thinking"] = thinking
    if tool_calls:
        message["tool_calls"] = [
            {"function": {"name": name, "arguments": arguments}} for name, arguments in tool_calls
        ]
    return {"message": message, "done": False}


def words(text: str) -> list[dict]:
    pieces = text.split(" ")
    return [part(piece if i == 0 else " " + piece) for i, piece in enumerate(pieces)]


def default_script(body: dict) -> list[dict]:
    """Think when asked to; with tools, search once for the question; then answer."""
    messages = body.get("messages", [])
    if body.get("think"):
        return [
            part(thinking="The question is about cells. "),
            part(thinking="Search the notes."),
            part("ignored"),
        ]
    last = messages[-1] if messages else {}
    if body.get("tools") and last.get("role") == "user":
        question = last.get("content", "").split("\n\n")[0]
        return [part(tool_calls=[("search_knowledge_base", {"query": question})])]
    return words(ANSWER)


class FakeModel:
    def __init__(self, script: Callable[[dict], list[dict]] = default_script) -> None:
        self.script = script
        self.delay = 0.0  # seconds before each streamed part
        self.first_delay = 0.0  # seconds before the first part (a slow model)
        self.garbage = False
        self.requests: list[dict] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "FakeModel":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def chat_requests(self) -> list[dict]:
        return [body for body in self.requests if "messages" in body]

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                if self.path == "/api/tags":
                    names = [MODEL, "embeddinggemma:latest"]
                    self._json({"models": [{"name": n, "model": n} for n in names]})
                else:
                    self.send_error(404)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append(body)
                if self.path == "/api/embed":
                    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    self._json(
                        {"model": body["model"], "embeddings": [[1.0, 0.0, 0.0]] * len(inputs)}
                    )
                    return
                if self.path != "/api/chat":
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.end_headers()
                if fake.garbage:
                    self.wfile.write(b"{not json at all\n")
                    return
                lines = [{**p, "model": MODEL} for p in fake.script(body)]
                lines.append(
                    {
                        "model": MODEL,
                        "message": {"role": "assistant", "content": ""},
                        "done": True,
                        "prompt_eval_count": 10,
                        "eval_count": len(lines),
                    }
                )
                try:
                    time.sleep(fake.first_delay)
                    for line in lines:
                        time.sleep(fake.delay)
                        self.wfile.write(json.dumps(line).encode() + b"\n")
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client closed the stream (stop)

            def _json(self, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


if __name__ == "__main__":
    server = FakeModel()
    server.delay = float(sys.argv[1]) if len(sys.argv) > 1 else 0.02
    server._server.server_close()
    server._server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), server._handler())
    print(server.url, flush=True)
    server._server.serve_forever()
