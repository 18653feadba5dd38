"""The per-session daemon: owns one Browser, serves commands on a Unix socket.

Started by the client as ``python -m kobrowser.cli._daemon --session NAME
--ready-fd FD ...`` in a new session (no controlling terminal). It

1. takes the session's pid lock (``NAME.pid``, ``flock``) for its whole
   life, and cleans up after a predecessor that was killed (its Chrome and
   profile directory, recorded in that file);
2. launches (or connects to) Chrome and opens a tab;
3. listens on ``NAME.sock`` (mode 0600, in the 0700 runtime directory),
   then writes one JSON line to the ready pipe (``{"ok": true}`` or the
   error) and closes it;
4. serves every connection in its own task. Commands that change a tab run
   one at a time; ``status``, ``close``, reads and waits run at once, so
   ``close`` answers even while a long ``wait`` runs;
5. stops on ``close``, SIGTERM/SIGINT, after the idle timeout, or when
   Chrome goes away: Chrome is closed, the socket removed, the lock released.

The Browser lives in the daemon's task group for the whole life of the
daemon (anyio on asyncio). This module is the process's life (steps 1-3
and 5); serving the connections and running the commands (step 4) is
:class:`~._serving.RequestServer`'s.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import time
import traceback
from typing import Any

import anyio
import anyio.abc

import kobrowser
from kobrowser._validate._proxy import masked
from kobrowser.cli._daemon._errors import describe_error
from kobrowser.cli._daemon._serving import RequestServer, log
from kobrowser.cli._locks import LockBusy, chrome_profile_dir, lock_file, reap_previous
from kobrowser.cli._protocol import DEFAULT_IDLE_TIMEOUT, PROXY_ENV, SessionPaths, session_paths

__all__ = ["Daemon", "main"]


class Daemon:
    """One session's daemon: its Browser, its socket, its life (see the module docstring)."""

    def __init__(
        self,
        paths: SessionPaths,
        *,
        headed: bool = False,
        executable_path: str | None = None,
        cdp: str | None = None,
        proxy: str | None = None,
        block: str | None = None,
        ids: str = "depth-first",
        timeout: float | None = None,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        ready_fd: int | None = None,
        pid_fd: int | None = None,
    ) -> None:
        self.paths = paths
        self.headed = headed
        self.executable_path = executable_path
        self.cdp = cdp
        self.proxy = proxy
        self.block = block
        self.ids = ids
        self.timeout = timeout
        self.idle_timeout = idle_timeout
        self.ready_fd = ready_fd
        self.pid_fd = pid_fd
        self.browser: kobrowser.Browser | None = None
        self.started = time.time()
        self.last_activity = 0.0
        self.inflight: set[anyio.CancelScope] = set()
        self.stopping = False
        self.stopped = anyio.Event()  # Chrome closed, socket removed
        self.exit_event = anyio.Event()  # the daemon may exit now
        self.task_group: anyio.abc.TaskGroup | None = None
        self.socket_inode: int | None = None
        self.stop_reason = ""
        self.server = RequestServer(self)

    # -- life --------------------------------------------------------------

    @property
    def launch_timeout(self) -> float:
        """Start-up deadline, also the library's default per-call deadline.

        Never below the library's 30 s default: a short ``--timeout`` on the
        command that happens to start the session must not become every
        later command's deadline (each command passes its own).
        """
        return max(self.timeout or 30.0, 30.0)

    def config(self) -> dict[str, Any]:
        return {
            "headed": self.headed,
            "executable_path": self.executable_path,
            "cdp": self.cdp,
            "proxy": self.proxy,
            "block": self.block,
            "ids": self.ids,
        }

    async def run(self) -> int:
        try:
            if self.cdp:
                browser = kobrowser.connect(
                    self.cdp,
                    timeout=self.launch_timeout,
                    ids="stable" if self.ids == "stable" else "depth-first",
                )
            else:
                browser = kobrowser.launch(
                    headless=not self.headed,
                    executable_path=self.executable_path,
                    timeout=self.launch_timeout,
                    proxy=self.proxy,
                    ids="stable" if self.ids == "stable" else "depth-first",
                )
            async with browser:
                self.browser = browser
                # `network har` writes every request of the session: record from the start.
                browser.default_context.start_har()
                if self.block:
                    await browser.default_context.block(types=self.block)
                await self.first_tab(browser)
                self.write_state(browser)
                listener = await anyio.create_unix_listener(self.paths.socket, mode=0o600)
                async with listener, anyio.create_task_group() as tg:
                    self.task_group = tg
                    self.socket_inode = os.stat(self.paths.socket).st_ino
                    self.last_activity = anyio.current_time()
                    tg.start_soon(listener.serve, self.server.serve_connection, tg)
                    tg.start_soon(self.watch_idle)
                    tg.start_soon(self.watch_signals)
                    tg.start_soon(self.watch_browser, browser)
                    self.signal_ready({"ok": True, "pid": os.getpid()})
                    log(f"serving session {self.paths.name!r} (Chrome pid {browser.pid})")
                    await self.exit_event.wait()
                    tg.cancel_scope.cancel()
                self.remove_socket()
        except Exception as exc:
            error = describe_error(exc)
            log(f"failed: {error['message']}\n{traceback.format_exc()}")
            self.signal_ready({"ok": False, "error": error})
            return 1
        finally:
            self.remove_socket()
            self.clear_state()
        log(f"stopped ({self.stop_reason or 'done'})")
        return 0

    async def first_tab(self, browser: kobrowser.Browser) -> None:
        """Use a tab the launched Chrome already tracks, else open one at once.

        A launched Chrome's blank start-up tab is not one of ``browser.tabs``
        (the library leaves it alone), so there is nothing to wait for
        (waiting for it cost every start 5 s). With --cdp a tab of the
        user's is never taken over.
        """
        tabs = [] if self.cdp else browser.tabs
        tab = tabs[0] if tabs else await browser.new_tab()
        await browser.switch_to(tab)

    def signal_ready(self, message: dict[str, Any]) -> None:
        if self.ready_fd is None:
            return
        fd, self.ready_fd = self.ready_fd, None
        with contextlib.suppress(OSError):
            os.write(fd, json.dumps(message).encode() + b"\n")
        with contextlib.suppress(OSError):
            os.close(fd)

    def remove_socket(self) -> None:
        """Unlink the socket, but only while it is still this daemon's."""
        if self.socket_inode is None:
            return
        with contextlib.suppress(OSError):
            if os.stat(self.paths.socket).st_ino == self.socket_inode:
                os.unlink(self.paths.socket)
        self.socket_inode = None

    def write_state(self, browser: kobrowser.Browser) -> None:
        if self.pid_fd is None:
            return
        state: dict[str, Any] = {"pid": os.getpid(), "started": self.started, **self.config()}
        chrome = browser.pid
        if chrome is not None:
            state["chrome_pid"] = chrome
            state["profile_dir"] = chrome_profile_dir(chrome)
        data = json.dumps(state).encode()
        os.ftruncate(self.pid_fd, 0)
        os.pwrite(self.pid_fd, data, 0)

    def clear_state(self) -> None:
        if self.pid_fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self.pid_fd, 0)

    async def stop(self, reason: str) -> None:
        """Refuse new commands, cancel running ones, close Chrome, drop the socket."""
        if self.stopping:
            await self.stopped.wait()
            return
        self.stopping = True
        self.stop_reason = reason
        log(f"stopping: {reason}")
        for scope in list(self.inflight):
            scope.cancel()
        with anyio.CancelScope(shield=True):
            if self.browser is not None:
                with anyio.move_on_after(15):
                    await self.browser.aclose()
            self.remove_socket()
        self.stopped.set()

    async def stop_and_exit(self, reason: str) -> None:
        await self.stop(reason)
        self.exit_event.set()

    async def watch_idle(self) -> None:
        while True:
            idle_for = anyio.current_time() - self.last_activity
            if not self.inflight and idle_for >= self.idle_timeout:
                await self.stop_and_exit(f"idle for {self.idle_timeout:g} s")
                return
            await anyio.sleep(max(0.05, min(self.idle_timeout - idle_for, 60.0)))

    async def watch_browser(self, browser: kobrowser.Browser) -> None:
        """Stop as soon as the connection to Chrome is lost (crash, killed, closed)."""
        gone = anyio.Event()
        reasons: list[str] = []

        def on_close(reason: str) -> None:  # runs on the CDP reader: no awaits
            reasons.append(reason)
            gone.set()

        browser.connection.on_close(on_close)
        if browser.connection.closed:
            gone.set()
        await gone.wait()
        if not self.stopping:  # not our own close
            await self.stop_and_exit(f"lost Chrome ({reasons[0] if reasons else 'closed'})")

    async def watch_signals(self) -> None:
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGHUP) as signals:
            async for signum in signals:
                await self.stop_and_exit(f"signal {signal.Signals(signum).name}")
                return

    def browser_gone(self) -> bool:
        try:
            return self.browser is None or self.browser.connection.closed
        except kobrowser.KoBrowserError:
            return True

    def spawn_stop(self, reason: str) -> None:
        # Stopping runs beside the reply, so this command's answer goes out first.
        if self.task_group is not None and not self.stopping:
            self.task_group.start_soon(self.stop_and_exit, reason)

    async def status(self) -> dict[str, Any]:
        browser = self.browser
        info: dict[str, Any] = {
            "session": self.paths.name,
            "pid": os.getpid(),
            "chrome_pid": browser.pid if browser else None,
            "started": self.started,
            "idle_timeout": self.idle_timeout,
            "running": len(self.inflight),
            "stopping": self.stopping,
            **self.config(),
        }
        if self.proxy:
            info["proxy"] = masked(self.proxy)  # never show a password
        if browser is not None and not self.stopping:
            tabs = browser.tabs
            info["tabs"] = len(tabs)
            if tabs:
                with contextlib.suppress(kobrowser.KoBrowserError):  # no current tab
                    info["url"] = browser.current_tab.url
        return info


def main(argv: list[str] | None = None) -> int:
    """Run one session's daemon (``python -m kobrowser.cli._daemon``); return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m kobrowser.cli._daemon")
    parser.add_argument("--session", required=True)
    parser.add_argument("--ready-fd", type=int, default=None)
    parser.add_argument("--headed", action="store_true")
    parser.add_argument("--executable-path", default=None)
    parser.add_argument("--cdp", default=None)
    parser.add_argument("--block", default=None)
    parser.add_argument("--ids", choices=("depth-first", "stable"), default="depth-first")
    parser.add_argument("--timeout", type=float, default=None)
    parser.add_argument("--idle-timeout", type=float, default=None)
    ns = parser.parse_args(argv)

    os.umask(0o077)
    idle = ns.idle_timeout
    if idle is None:
        try:
            idle = float(os.environ.get("KOBROWSER_IDLE_TIMEOUT") or DEFAULT_IDLE_TIMEOUT)
        except ValueError:
            idle = DEFAULT_IDLE_TIMEOUT
    paths = session_paths(ns.session)
    ready_fd = ns.ready_fd
    try:
        # A daemon that is stopping (after `close`) may hold it for a moment.
        pid_fd = lock_file(paths.pid, wait=20.0)
    except LockBusy:
        text = f"another daemon of session {paths.name!r} is running (holds {paths.pid})"
        message = {"ok": False, "error": {"type": "SessionBusy", "message": text, "exit": 1}}
        if ready_fd is not None:
            os.write(ready_fd, json.dumps(message).encode() + b"\n")
        log(text)
        return 1
    try:
        previous = os.pread(pid_fd, 1 << 16, 0).decode(errors="replace")
        if previous.strip():
            done = reap_previous(previous)
            if done:
                log(done)
        daemon = Daemon(
            paths,
            headed=ns.headed,
            executable_path=ns.executable_path,
            cdp=ns.cdp,
            proxy=os.environ.pop(PROXY_ENV, None) or None,
            block=ns.block,
            ids=ns.ids,
            timeout=ns.timeout,
            idle_timeout=idle,
            ready_fd=ready_fd,
            pid_fd=pid_fd,
        )
        return anyio.run(daemon.run, backend="asyncio")
    finally:
        os.close(pid_fd)  # releases the lock
