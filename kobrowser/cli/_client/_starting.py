"""Client side: start a session's daemon, or clean up after a dead one.

Standard library only, like :mod:`._main`, which imports this module only
when a command finds no daemon listening. :func:`start_daemon` starts one
under the session's start lock (another client starting the same session
at the same moment connects to that daemon instead) and waits for its
ready line; :func:`clean_dead` serves `close` of a session whose daemon was
killed, removing what it left.
"""

from __future__ import annotations

import _socket as socket  # not `socket`: its enum set-up costs ms
import json
import os
import sys
import time
from pathlib import Path

from kobrowser.cli._client._connection import (
    DEFAULT_TIMEOUT,
    LONGEST_WAIT,
    PROG,
    ClientError,
    connect,
    suppress_os_error,
)
from kobrowser.cli._protocol import PROXY_ENV, SessionPaths

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the client never imports typing
if TYPE_CHECKING:
    from typing import Any

__all__ = ["START_GRACE", "clean_dead", "start_daemon"]

#: Seconds to wait for a new daemon beyond its Chrome launch timeout.
START_GRACE = 20.0


def start_daemon(
    paths: SessionPaths, options: dict[str, Any], *, replace_stale: bool
) -> socket.socket:
    """Start the session's daemon under the session's start lock; return a connection.

    Another client may be starting the same session at the same moment: the
    lock makes one of them start it and the other connect to that daemon.
    """
    from kobrowser.cli._locks import LockBusy, lock_file

    launch_timeout = options["timeout"] or DEFAULT_TIMEOUT
    deadline = time.monotonic() + launch_timeout + START_GRACE
    try:
        fd = lock_file(paths.lock, wait=launch_timeout + START_GRACE)
    except LockBusy:
        raise ClientError(
            f"session {paths.name!r} is being started by another command and did not come up",
            f"see {paths.log}",
        ) from None
    try:
        sock, stale = connect(paths.socket)  # started while we waited for the lock?
        if sock is not None:
            return sock
        if stale or replace_stale:
            sys.stderr.write(
                f"{PROG}: session {paths.name!r} had stopped unexpectedly; "
                "starting a new one (its pages are gone)\n"
            )
        _spawn(paths, options, launch_timeout, deadline)
        sock, stale = connect(paths.socket)
        if sock is None:
            raise ClientError(
                f"the daemon of session {paths.name!r} started but its socket is gone",
                f"see {paths.log}",
            )
        return sock
    finally:
        os.close(fd)  # releases the lock


def clean_dead(paths: SessionPaths) -> socket.socket | None:
    """`close` of a session without a live daemon: remove what a killed one left.

    Returns a connection when a daemon came up meanwhile (it is closed instead).
    """
    from kobrowser.cli._locks import LockBusy, lock_file, reap_previous

    try:
        fd = lock_file(paths.lock, wait=DEFAULT_TIMEOUT + START_GRACE)
    except LockBusy:
        raise ClientError(f"session {paths.name!r} is being started by another command") from None
    try:
        sock, stale = connect(paths.socket)
        if sock is not None:
            return sock
        try:
            pid_fd = lock_file(paths.pid, wait=DEFAULT_TIMEOUT)
        except LockBusy:
            raise ClientError(
                f"the daemon of session {paths.name!r} holds its lock but does not answer",
                f"see {paths.log}",
            ) from None
        try:
            state = os.pread(pid_fd, 1 << 16, 0).decode(errors="replace")
            if state.strip():
                reap_previous(state)
                os.ftruncate(pid_fd, 0)
        finally:
            os.close(pid_fd)
        if stale:
            with suppress_os_error():
                os.unlink(paths.socket)
        return None
    finally:
        os.close(fd)


def _spawn(
    paths: SessionPaths, options: dict[str, Any], launch_timeout: float, deadline: float
) -> None:
    import select
    import subprocess

    package_root = str(Path(__file__).resolve().parents[3])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    env.pop("PYTHONSTARTUP", None)
    if options["proxy"]:  # in the environment, not the command line (`ps` shows that)
        env[PROXY_ENV] = options["proxy"]
    read_fd, write_fd = os.pipe()
    command = [
        sys.executable,
        "-m",
        "kobrowser.cli._daemon",
        "--session",
        paths.name,
        "--ready-fd",
        str(write_fd),
        "--timeout",
        str(launch_timeout),
    ]
    if options["headed"]:
        command.append("--headed")
    if options["executable_path"]:
        command += ["--executable-path", os.path.abspath(options["executable_path"])]
    if options["cdp"]:
        command += ["--cdp", options["cdp"]]
    if options["idle_timeout"]:
        command += ["--idle-timeout", str(options["idle_timeout"])]
    if options["block"]:
        command += ["--block", options["block"]]
    if options["ids"]:
        command += ["--ids", options["ids"]]
    if paths.log.exists():
        with suppress_os_error():
            os.replace(paths.log, paths.log.with_name(paths.log.name + ".1"))
    log_fd = os.open(paths.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
    try:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log_fd,
            stderr=log_fd,
            pass_fds=(write_fd,),
            start_new_session=True,
            cwd="/",
            env=env,
        )
    except OSError as exc:
        os.close(read_fd)
        raise ClientError(f"cannot start the session daemon: {exc}") from None
    finally:
        os.close(write_fd)
        os.close(log_fd)
    # The daemon outlives this process: never wait for it here.
    process.returncode = 0  # keeps Popen.__del__ from warning about a running child
    data = b""
    try:
        while b"\n" not in data:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ClientError(
                    f"the daemon of session {paths.name!r} did not start within "
                    f"{launch_timeout + START_GRACE:g} s",
                    f"see {paths.log}",
                )
            ready, _, _ = select.select([read_fd], [], [], min(remaining, LONGEST_WAIT))
            if not ready:
                continue
            chunk = os.read(read_fd, 65536)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(read_fd)
    try:
        message = json.loads(data) if data.strip() else None
    except ValueError:
        message = None
    if not isinstance(message, dict):
        raise ClientError(
            f"the daemon of session {paths.name!r} exited while starting: {_log_tail(paths)}",
            f"see {paths.log}",
            "DaemonStartError",
        )
    if not message.get("ok"):
        error = message.get("error") or {}
        raise ClientError(
            error.get("message") or "the session daemon could not start",
            error.get("hint") or f"see {paths.log}",
            error.get("type", "DaemonStartError"),
        )


def _log_tail(paths: SessionPaths) -> str:
    try:
        lines = paths.log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "no log"
    return lines[-1] if lines else "no log"
