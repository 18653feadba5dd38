"""A bare CDP client for the benchmark floor: one aiohttp WebSocket, or Chrome's CBOR pipe.

Set-up calls (attach, navigate, frame discovery) use a simple
send-then-read-until-answered loop that also collects events. The timed
floor (:meth:`RawTab.fetch_all`) sends every ``getFullAXTree`` at once and
only receives until every answer is in: no JSON decoding, no dispatch.

:class:`RawPipe` is the same client on a Chrome started with
``--remote-debugging-pipe=cbor`` (:class:`kobrowser.cdp.ChromeProcess`); its
floor includes the native transcode of each answer into JSON (what every
CBOR-pipe client must do before it can decode), and nothing else.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import aiohttp

__all__ = ["RawCDP", "RawPipe", "RawTab"]


class RawCDP:
    """One WebSocket to the browser; answers and events read inline."""

    def __init__(self, session: aiohttp.ClientSession, ws: aiohttp.ClientWebSocketResponse[Any]):
        self._session = session
        self.ws = ws
        self._ids = itertools.count(1)
        self.events: list[dict[str, Any]] = []

    @classmethod
    async def connect(cls, ws_url: str, *, decode_text: bool = True) -> RawCDP:
        session = aiohttp.ClientSession()
        ws = await session.ws_connect(
            ws_url, max_msg_size=0, heartbeat=None, compress=0, decode_text=decode_text
        )
        return cls(session, ws)

    async def close(self) -> None:
        await self.ws.close()
        await self._session.close()

    def next_id(self) -> int:
        return next(self._ids)

    async def send_json(self, message: dict[str, Any]) -> None:
        await self.ws.send_str(json.dumps(message))

    async def receive_data(self) -> str | bytes:
        data: str | bytes = (await self.ws.receive()).data
        return data

    async def call(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> dict[str, Any]:
        """Send one call and read until its answer (events are kept in ``events``)."""
        call_id = self.next_id()
        msg: dict[str, Any] = {"id": call_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        await self.send_json(msg)
        while True:
            data = json.loads(await self.receive_data())
            if data.get("id") == call_id:
                if "error" in data:
                    raise RuntimeError(f"{method}: {data['error']}")
                result: dict[str, Any] = data["result"]
                return result
            if "method" in data:
                self.events.append(data)

    async def pump(self, seconds: float) -> None:
        """Read events for ``seconds``."""
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while (left := end - loop.time()) > 0:
            try:
                raw = await asyncio.wait_for(self.receive_data(), left)
            except TimeoutError:
                return
            data = json.loads(raw)
            if "method" in data:
                self.events.append(data)


class RawPipe(RawCDP):
    """The same bare client over Chrome's CBOR pipe (answers transcoded to JSON bytes)."""

    def __init__(self, transport: Any) -> None:
        self.transport = transport
        self._ids = itertools.count(1)
        self.events: list[dict[str, Any]] = []

    @classmethod
    async def launch(cls, chrome: Any) -> RawPipe:
        """On a started :class:`kobrowser.cdp.ChromeProcess` (``transport="pipe-cbor"``)."""
        return cls(await chrome.open(timeout=60))

    async def close(self) -> None:
        await self.transport.aclose()

    async def send_json(self, message: dict[str, Any]) -> None:
        transport = self.transport
        params = message.get("params")
        await transport.send(
            transport.encode_call(
                message["id"], message["method"], params or None, message.get("sessionId")
            )
        )

    async def receive_data(self) -> str | bytes:
        data: bytes = await self.transport.receive()
        return data


class RawTab:
    """A tab on a :class:`RawCDP`, with every frame session attached up front."""

    def __init__(self, cdp: RawCDP) -> None:
        self.cdp = cdp
        self.page = ""
        self.target_id = ""
        self.sessions: list[str] = []
        # (session id, frame id or None for the session's own document)
        self.targets: list[tuple[str, str | None]] = []

    async def open(self, url: str) -> None:
        cdp = self.cdp
        cdp.events.clear()
        target = await cdp.call("Target.createTarget", {"url": "about:blank"})
        self.target_id = target["targetId"]
        att = await cdp.call(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}
        )
        self.page = att["sessionId"]
        await cdp.call("Page.enable", session=self.page)
        await self._auto_attach(self.page)
        await cdp.call("Page.navigate", {"url": url}, session=self.page)
        while not any(
            e["method"] == "Page.loadEventFired" and e.get("sessionId") == self.page
            for e in cdp.events
        ):
            await cdp.pump(0.1)
        await self.settle()

    async def close(self) -> None:
        await self.cdp.call("Target.closeTarget", {"targetId": self.target_id})
        self.cdp.events.clear()

    async def _auto_attach(self, session: str) -> None:
        await self.cdp.call(
            "Target.setAutoAttach",
            {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True},
            session=session,
        )

    async def settle(self) -> None:
        """Attach recursively to every out-of-process frame, then list all frames."""
        cdp = self.cdp
        sessions = [self.page]
        seen = 0
        await cdp.pump(0.3)
        while True:
            new = [
                e["params"]["sessionId"]
                for e in cdp.events[seen:]
                if e["method"] == "Target.attachedToTarget"
                and e["params"]["targetInfo"]["type"] == "iframe"
            ]
            seen = len(cdp.events)
            if not new:
                break
            for sid in new:
                sessions.append(sid)
                await self._auto_attach(sid)
            await cdp.pump(0.3)
        self.sessions = sessions
        targets: list[tuple[str, str | None]] = []
        for sid in sessions:
            tree = (await cdp.call("Page.getFrameTree", session=sid))["frameTree"]
            targets.append((sid, None))
            stack = list(tree.get("childFrames", []))
            while stack:
                node = stack.pop()
                targets.append((sid, node["frame"]["id"]))
                stack.extend(node.get("childFrames", []))
        self.targets = targets

    async def fetch_all(
        self, method: str = "Accessibility.getFullAXTree", extra: dict[str, Any] | None = None
    ) -> int:
        """The floor: send the call for every frame at once, receive every answer.

        Returns the total bytes (characters) received in answers.
        """
        cdp = self.cdp
        pending = set()
        for sid, frame_id in self.targets:
            call_id = self.cdp.next_id()
            params: dict[str, Any] = dict(extra or {})
            if frame_id is not None:
                params["frameId"] = frame_id
            pending.add(call_id)
            await cdp.send_json(
                {"id": call_id, "method": method, "params": params, "sessionId": sid}
            )
        size = 0
        left = len(pending)
        while left:
            data = await cdp.receive_data()
            if data[:6] in ('{"id":', b'{"id":'):
                left -= 1
                size += len(data)
        return size


async def timed_call(
    cdp: RawCDP, session: str, method: str, params: dict[str, Any] | None = None
) -> tuple[float, int]:
    """Seconds until the answer of one call arrives (events skipped), and its size."""
    loop = asyncio.get_running_loop()
    call_id = cdp.next_id()
    prefix = f'{{"id":{call_id},'
    start = loop.time()
    await cdp.send_json(
        {"id": call_id, "method": method, "params": params or {}, "sessionId": session}
    )
    while True:
        data = await cdp.receive_data()
        if isinstance(data, bytes):
            data = data.decode()
        if data.startswith(prefix):
            return loop.time() - start, len(data)
