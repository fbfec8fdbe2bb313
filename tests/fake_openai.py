"""A local OpenAI-compatible embeddings server for tests: scripted failures, recorded calls.

Vectors are deterministic (a hash of the input), so tests can check order and batching.
"""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def vector_for(text: str, dims: int) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [(digest[i % len(digest)] - 127.5) / 127.5 for i in range(dims)]


class FakeOpenAI:
    """``script`` is consumed one entry per request: (status, headers) to fail, None to answer."""

    def __init__(self, dims: int = 8, api_key: str = "sk-test"):
        self.dims = dims
        self.api_key = api_key
        self.script: list[tuple[int, dict[str, str]] | None] = []
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    server.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
                    step = server.script.pop(0) if server.script else None
                if self.headers.get("Authorization") != f"Bearer {server.api_key}":
                    return self._reply(
                        401,
                        {
                            "error": {
                                "message": "Incorrect API key",
                                "type": "invalid_request_error",
                                "code": "invalid_api_key",
                            }
                        },
                    )
                if step is not None:
                    status, headers = step
                    return self._reply(
                        status, {"error": {"message": f"scripted {status}", "type": "server_error"}}, headers
                    )
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                dims = body.get("dimensions") or server.dims
                data = [
                    {"object": "embedding", "index": i, "embedding": vector_for(t, dims)} for i, t in enumerate(inputs)
                ]
                data.reverse()  # the API does not promise order; the client must sort by index
                self._reply(
                    200,
                    {
                        "object": "list",
                        "data": data,
                        "model": body["model"],
                        "usage": {"prompt_tokens": 1, "total_tokens": 1},
                    },
                )

            def _reply(self, status, payload, headers=None):
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(raw)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
