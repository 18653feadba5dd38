"""The native `ko-browser` client built from source for tests, and a fake daemon.

:func:`build_native` compiles ``kobrowser/cli/_native/ko_browser.c`` (with
its dry-run hook) into a directory, beside a ``ko-browser-py`` that runs this
interpreter's Python client and records each time it is run (a line in
``fallbacks``: ``run``, or the hand-off ``FD:ID`` of a reply). So a test
runs the current source, not the copy an install made, and can tell what the
native client served itself.

:class:`FakeDaemon` listens on a session's socket in a runtime directory and
answers each request line with what its ``answer`` function returns, so both
clients can be given the same reply, byte for byte.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

SOURCE = Path(__file__).resolve().parents[2] / "kobrowser" / "cli" / "_native" / "ko_browser.c"
PYTHON_CLIENT = [sys.executable, "-m", "kobrowser.cli"]


class Native:
    """A built native client: ``command`` to run, ``fallbacks()`` to read its hand-overs."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.command = [str(directory / "ko-browser")]
        self.log = directory / "fallbacks"

    def fallbacks(self) -> list[str]:
        """What ``ko-browser-py`` was run for since the last call ("run" or "FD:ID")."""
        if not self.log.exists():
            return []
        lines = self.log.read_text().splitlines()
        self.log.unlink()
        return lines


def build_native(directory: Path) -> Native | None:
    """Compile the native client into ``directory``; None without a C compiler.

    ``$KOBROWSER_NATIVE_CFLAGS`` adds flags (``-fsanitize=address,undefined``
    runs the tests under the sanitizers).
    """
    cc = shutil.which(os.environ.get("CC", "cc"))
    if cc is None:
        return None
    directory.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [cc, "-O2", "-std=c11", "-Wall", "-Wextra", "-Werror", "-DKOBROWSER_NATIVE_TEST",
         *os.environ.get("KOBROWSER_NATIVE_CFLAGS", "").split(),
         "-o", str(directory / "ko-browser"), str(SOURCE)],
        check=True,
    )  # fmt: skip
    shim = directory / "ko-browser-py"
    shim.write_text(
        "#!/bin/sh\n"
        f'echo "${{KOBROWSER_NATIVE_REPLY:-run}}" >> "{directory}/fallbacks"\n'
        f'exec "{sys.executable}" -m kobrowser.cli "$@"\n'
    )
    shim.chmod(0o755)
    return Native(directory)


Answer = Callable[[dict[str, Any]], bytes | None]


def ok(text: str = "done", result: Any = None) -> Answer:
    """An answer function: ok, with ``text`` and ``result``, as the daemon encodes it."""

    def answer(request: dict[str, Any]) -> bytes:
        reply = {"v": 1, "id": request["id"], "ok": True, "result": result or {}, "text": text}
        return json.dumps(reply, separators=(",", ":"), ensure_ascii=True).encode() + b"\n"

    return answer


class FakeDaemon:
    """Answers requests on ``DIRECTORY/SESSION.sock`` from a thread.

    ``answer(request)`` gives the bytes to send (None: send nothing and wait
    until the client leaves). Every request received is kept in ``requests``.
    """

    def __init__(self, directory: Path, answer: Answer, session: str = "default") -> None:
        self.answer = answer
        self.requests: list[dict[str, Any]] = []
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.bind(str(directory / f"{session}.sock"))
        self._sock.listen(8)
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            with conn:
                line = conn.makefile("rb").readline()
                if not line:
                    continue
                request = json.loads(line)
                self.requests.append(request)
                data = self.answer(request)
                if data is None:
                    while conn.recv(1 << 16):
                        pass
                else:
                    conn.sendall(data)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)  # wakes the accept()
        self._sock.close()
        self._thread.join(5)
