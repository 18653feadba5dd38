"""A fake OpenAI-compatible ``/v1/chat/completions`` endpoint on the test server.

``chat = FakeChat(server, policy)`` serves ``POST /v1/chat/completions`` on
the session's :class:`_server.PageServer` (127.0.0.1; no network) and
answers each request with ``policy(messages)``: a reply string, or an
``(HTTP status, error message)`` pair for an error answer. ``chat.base_url``
is the API root to give a client; ``chat.requests`` holds every request
(``body``: the decoded JSON, ``auth``: the Authorization header).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from _server import PageServer
from aiohttp import web

__all__ = ["FakeChat", "completion"]

Policy = Callable[[list[dict[str, Any]]], "str | tuple[int, str]"]


def completion(model: str, content: str) -> dict[str, Any]:
    """A chat.completion object with one choice."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


class FakeChat:
    def __init__(self, server: PageServer, policy: Policy, path: str = "/v1") -> None:
        self.policy = policy
        self._lock = threading.Lock()
        self._requests: list[dict[str, Any]] = []
        server.set_route(f"{path}/chat/completions", self._handle)
        self.base_url = server.url(path)

    @property
    def requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._requests)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        with self._lock:
            self._requests.append({"body": body, "auth": request.headers.get("Authorization")})
        answer = self.policy(body["messages"])
        if isinstance(answer, tuple):
            status, message = answer
            error = {"message": message, "type": "invalid_request_error", "code": None}
            return web.json_response({"error": error}, status=status)
        return web.json_response(completion(body["model"], answer))
