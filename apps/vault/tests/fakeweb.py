"""A fake internet for URL imports: a resolver that answers from a table and a web server on
loopback that stands in for every public address, so no test leaves this machine."""

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PUBLIC_IP = "93.184.216.34"  # a global address; connections to it are diverted to loopback


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        pass  # a client that hung up early (the guard refusing a body) is expected here


class FakeWeb:
    def __init__(self) -> None:
        self.names: dict[str, list[str]] = {
            "public.test": [PUBLIC_IP],
            "www.public.test": [PUBLIC_IP],
        }
        self.pages: dict[str, tuple[int, dict[str, str], bytes]] = {}
        self.delay = 0.0
        self.connections: list[tuple[str, int]] = []
        self.resolved: list[str] = []
        self._server = QuietServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    def page(self, path: str, body: bytes | str, *, status: int = 200, **headers: str) -> None:
        data = body.encode() if isinstance(body, str) else body
        headers = {key.replace("_", "-"): value for key, value in headers.items()}
        headers.setdefault("Content-Type", "text/html; charset=utf-8")
        self.pages[path] = (status, headers, data)

    def resolver(self, host: str, port: int) -> list[str]:
        self.resolved.append(host)
        if host not in self.names:
            raise socket.gaierror(f"unknown host {host}")
        return self.names[host]

    def connector(self, address: str, port: int, timeout: float) -> socket.socket:
        self.connections.append((address, port))
        assert address == PUBLIC_IP, f"the guard let a connection to {address} through"
        return socket.create_connection(self._server.server_address[:2], timeout=timeout)

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self):
        web = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                if web.delay:
                    time.sleep(web.delay)
                status, headers, body = web.pages.get(self.path, (404, {}, b"not here"))
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler
