"""Downloads: saved to a directory the user sets, each one awaitable.

Chrome saves each download as ``<dir>/<guid>`` (``allowAndName``) and reports
progress on the browser session; when one completes it is renamed to its
suggested file name (made unique in the directory).
"""

from __future__ import annotations

import contextlib
import os
from collections import deque
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import anyio
import msgspec

from kobrowser._exceptions import DownloadError, WaitTimeoutError
from kobrowser._validate import check

if TYPE_CHECKING:
    from kobrowser._tab._tab import Tab
    from kobrowser.cdp import CDPSession

__all__ = ["Download", "Downloads"]

DownloadState = Literal["in_progress", "completed", "canceled"]


class _WillBegin(msgspec.Struct):
    guid: str
    url: str = ""
    suggestedFilename: str = ""
    frameId: str = ""


class _Progress(msgspec.Struct):
    guid: str
    state: str = "inProgress"
    totalBytes: float = 0
    receivedBytes: float = 0


_WILL_BEGIN = msgspec.json.Decoder(_WillBegin)
_PROGRESS = msgspec.json.Decoder(_Progress)


class Download:
    """One file download.

    Attributes:
        url: what is downloaded.
        suggested_filename: the name the page or server suggested.
        tab: the tab it started in, when known.
        state: ``"in_progress"``, ``"completed"`` or ``"canceled"``.
        received_bytes, total_bytes: progress (total is 0 when unknown).
        path: the saved file, once completed.
    """

    def __init__(self, begin: _WillBegin, directory: Path, tab: Tab | None) -> None:
        self.guid = begin.guid
        self.url = begin.url
        self.suggested_filename = begin.suggestedFilename or "download"
        self.tab = tab
        self.directory = directory
        self.state: DownloadState = "in_progress"
        self.received_bytes = 0
        self.total_bytes = 0
        self.path: Path | None = None
        self._done = anyio.Event()

    def __repr__(self) -> str:
        return f"<Download {self.suggested_filename!r} {self.state}>"

    async def wait(self, *, timeout: float | None = 60.0) -> Path:
        """Wait until the download completes and return the saved file's path.

        Raises:
            DownloadError: the download was canceled or failed (or the
                browser closed before it completed).
            WaitTimeoutError: not complete within ``timeout`` seconds.

        Cancelling the caller stops waiting; the download goes on.
        """
        check(timeout=timeout)
        with anyio.move_on_after(timeout):
            await self._done.wait()
        if not self._done.is_set():
            raise WaitTimeoutError(
                f"download of {self.url!r} not complete within {timeout:g} s"
                f" ({self.received_bytes} bytes so far)"
            )
        if self.path is None:
            raise DownloadError(
                f"download of {self.url!r} was {self.state}", url=self.url, state=self.state
            )
        return self.path


class Downloads:
    """The browser's downloads: follows the browser session's download events.

    Args:
        tab_of_frame: the tab a frame id belongs to, if any.
        directory_of: where a download of a tab (None: unknown) is saved.
        spawn: runs a coroutine function in the browser's task group.
    """

    def __init__(
        self,
        tab_of_frame: Callable[[str], Tab | None],
        directory_of: Callable[[Tab | None], Path],
        spawn: Callable[[Callable[[], Coroutine[Any, Any, None]]], None],
    ) -> None:
        self._tab_of_frame = tab_of_frame
        self._directory_of = directory_of
        self._spawn = spawn
        self.all: list[Download] = []
        self._unclaimed: deque[Download] = deque()
        self._by_guid: dict[str, Download] = {}
        self._changed = anyio.Event()

    def watch(self, root: CDPSession) -> None:
        """Listen to the browser session's download events."""
        root.add_listener("Browser.downloadWillBegin", self._on_begin)
        root.add_listener("Browser.downloadProgress", self._on_progress)

    async def next(self, tab: Tab | None, timeout: float) -> Download:
        """The oldest download not yet returned (from ``tab`` when given), or the next one."""
        with anyio.move_on_after(timeout):
            while True:
                for download in self._unclaimed:
                    if tab is None or download.tab is tab:
                        self._unclaimed.remove(download)
                        return download
                await self._changed.wait()
        raise WaitTimeoutError(f"no download started within {timeout:g} s")

    def close(self) -> None:
        """The browser is closing: wake every waiter."""
        for download in self._by_guid.values():
            if download.state == "in_progress":
                download.state = "canceled"
                download._done.set()
        self._by_guid.clear()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    def _on_begin(self, raw: msgspec.Raw) -> None:
        begin = _WILL_BEGIN.decode(raw)
        tab = self._tab_of_frame(begin.frameId)
        directory = self._directory_of(tab)
        download = Download(begin, directory, tab)
        self.all.append(download)
        self._unclaimed.append(download)
        self._by_guid[download.guid] = download
        self._notify()

    def _on_progress(self, raw: msgspec.Raw) -> None:
        progress = _PROGRESS.decode(raw)
        download = self._by_guid.get(progress.guid)
        if download is None:
            return
        download.received_bytes = int(progress.receivedBytes)
        download.total_bytes = int(progress.totalBytes)
        if progress.state == "completed":
            del self._by_guid[progress.guid]
            self._spawn(lambda: _finish(download))
        elif progress.state == "canceled":
            del self._by_guid[progress.guid]
            download.state = "canceled"
            download._done.set()


async def _finish(download: Download) -> None:
    """Rename ``<dir>/<guid>`` to a free name from the suggested one."""
    try:
        source = anyio.Path(download.directory / download.guid)
        target = await anyio.to_thread.run_sync(
            _free_name, download.directory, download.suggested_filename
        )
        with contextlib.suppress(OSError):
            await source.rename(target)
        download.path = target if await anyio.Path(target).exists() else Path(source)
        download.state = "completed"
    finally:
        download._done.set()


def _free_name(directory: Path, name: str) -> Path:
    name = os.path.basename(name.replace("\\", "/")) or "download"
    stem, dot, ext = name.rpartition(".")
    if not dot:
        stem, ext = name, ""
    candidate = directory / name
    number = 1
    while candidate.exists():
        candidate = directory / (f"{stem} ({number}).{ext}" if ext else f"{stem} ({number})")
        number += 1
    return candidate


def download_behavior(directory: Path, context_id: str | None) -> dict[str, Any]:
    """Parameters of ``Browser.setDownloadBehavior`` for ``directory``."""
    params: dict[str, Any] = {
        "behavior": "allowAndName",
        "downloadPath": str(directory),
        "eventsEnabled": True,
    }
    if context_id is not None:
        params["browserContextId"] = context_id
    return params
