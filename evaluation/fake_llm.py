"""A fake OpenAI-compatible chat-completions server over real HTTP (loopback).

Each test scripts its behaviour with a function from the request body to (status, reply
content); the server records every request it received.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Script = Callable[[dict[str, Any], int], tuple[int, str]]


class FakeLLM:
    def __init__(self, script: Script):
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.url = ""

    def reply(self, body: dict[str, Any]) -> tuple[int, str]:
        self.requests.append(body)
        return self.script(body, len(self.requests))


@contextmanager
def fake_llm(script: Script) -> Iterator[FakeLLM]:
    llm = FakeLLM(script)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server API
            length = int(self.headers.get("content-length", 0))
            body = json.loads(self.rfile.read(length))
            if self.path != "/v1/chat/completions":
                self.send_error(404)
                return
            status, content = llm.reply(body)
            payload = json.dumps(
                {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
                if status == 200
                else {"error": {"message": content}}
            ).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    llm.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield llm
    finally:
        server.shutdown()
        server.server_close()


def answer(text: str, citations: list[str]) -> str:
    return json.dumps({"answer": text, "citations": citations}, ensure_ascii=False)
