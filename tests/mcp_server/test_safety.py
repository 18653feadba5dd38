"""Pure parts of the MCP server: the upload policy, the local-clients check, reply text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kobrowser import Element
from kobrowser.actions import normalize_url
from kobrowser.mcp._replies import element_line
from kobrowser.mcp._safety import LocalClientsOnly, RefusedError, is_loopback, upload_files

pytestmark = pytest.mark.anyio


def test_uploads_are_off_without_a_directory(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a")
    with pytest.raises(RefusedError, match="file upload is off"):
        upload_files([str(tmp_path / "a.txt")], None)


def test_upload_paths_resolve_inside_the_directory(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("a")
    (root / "sub" / "b.txt").write_text("b")
    (root / "inner-link.txt").symlink_to(root / "sub" / "b.txt")
    real = str(root.resolve())
    assert upload_files(["a.txt", "sub/b.txt", str(root / "a.txt")], root) == [
        f"{real}/a.txt",
        f"{real}/sub/b.txt",
        f"{real}/a.txt",
    ]
    # A link inside pointing inside is the file it points to.
    assert upload_files(["inner-link.txt"], root) == [f"{real}/sub/b.txt"]
    # The directory itself may be reached through a symlink.
    (tmp_path / "alias").symlink_to(root)
    assert upload_files(["a.txt"], tmp_path / "alias") == [f"{real}/a.txt"]


@pytest.mark.parametrize(
    "path", ["../outside.txt", "sub/../../outside.txt", "out-link.txt", "dir-link/outside.txt"]
)
def test_upload_paths_outside_are_refused(tmp_path: Path, path: str) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "outside.txt").write_text("secret")
    (root / "out-link.txt").symlink_to(tmp_path / "outside.txt")
    (root / "dir-link").symlink_to(tmp_path)
    with pytest.raises(RefusedError, match=f"upload refused: {path} is outside the directory"):
        upload_files([path], root)
    with pytest.raises(RefusedError, match="is outside"):
        upload_files([str(tmp_path / "outside.txt")], root)


def test_upload_needs_existing_files(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    with pytest.raises(RefusedError, match=r"missing\.txt is not a file in"):
        upload_files(["missing.txt"], tmp_path)
    with pytest.raises(RefusedError, match="dir is not a file in"):
        upload_files(["dir"], tmp_path)
    with pytest.raises(RefusedError, match="at least one file"):
        upload_files([], tmp_path)


@pytest.mark.parametrize(
    ("host", "local"),
    [
        ("127.0.0.1", True),
        ("127.3.4.5", True),
        ("::1", True),
        ("[::1]", True),
        ("::ffff:127.0.0.1", True),
        ("localhost", True),
        ("10.0.0.7", False),
        ("192.168.1.2", False),
        ("::ffff:10.0.0.7", False),
        ("2001:db8::1", False),
        ("example.com", False),
        ("", False),
    ],
)
def test_is_loopback(host: str, local: bool) -> None:
    assert is_loopback(host) is local


async def _asgi(app: Any, client: tuple[str, int] | None) -> tuple[int, bytes]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": [], "client": client}
    await app(scope, receive, send)
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


async def test_local_clients_only() -> None:
    reached: list[Any] = []

    async def inner(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["client"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    app = LocalClientsOnly(inner)
    assert await _asgi(app, ("127.0.0.1", 5000)) == (200, b"ok")
    assert await _asgi(app, ("::1", 5000)) == (200, b"ok")
    status, body = await _asgi(app, ("10.1.2.3", 5000))
    assert status == 403 and b"only local clients" in body
    assert (await _asgi(app, None))[0] == 403
    assert reached == [("127.0.0.1", 5000), ("::1", 5000)]
    # The lifespan of the app inside passes through untouched.
    lifespan: list[str] = []

    async def life(scope: Any, receive: Any, send: Any) -> None:
        lifespan.append(scope["type"])

    await LocalClientsOnly(life)({"type": "lifespan"}, None, None)
    assert lifespan == ["lifespan"]


@pytest.mark.parametrize(
    ("url", "normal"),
    [
        ("example.com", "https://example.com"),
        ("example.com/a?b=1", "https://example.com/a?b=1"),
        ("localhost:8000/x", "http://localhost:8000/x"),
        ("127.0.0.1:9/", "http://127.0.0.1:9/"),
        ("[::1]:8080", "http://[::1]:8080"),
        ("app.localhost", "http://app.localhost"),
        ("http://example.com", "http://example.com"),
        ("about:blank", "about:blank"),
        ("data:text/html,hi", "data:text/html,hi"),
        ("  example.com ", "https://example.com"),
        ("ABOUT:blank", "ABOUT:blank"),
        ("chrome://version", "chrome://version"),
        ("[::1]", "http://[::1]"),
        ("[2001:db8::1]:443/x", "https://[2001:db8::1]:443/x"),
        ("LocalHost:8000/A", "http://LocalHost:8000/A"),
        ("App.LOCALHOST", "http://App.LOCALHOST"),
    ],
)
def test_normalize_url(url: str, normal: str) -> None:
    assert normalize_url(url) == normal


def _element(**fields: Any) -> Element:
    base: dict[str, Any] = {
        "id": 7,
        "role": "button",
        "name": "",
        "value": None,
        "states": (),
        "frame_id": "F",
        "backend_node_id": 1,
        "loader_id": "L",
    }
    return Element(**{**base, **fields})


def test_element_line() -> None:
    assert element_line(_element(name="Pay")) == '7: button "Pay"'
    assert element_line(_element(role="list")) == "7: list"
    assert element_line(
        _element(role="textbox", name="Email", value="a@b.c", states=("focused", "required"))
    ) == ('7: textbox "Email" value="a@b.c" focused required')
    assert (
        element_line(_element(role="combobox", name="Size", value="Size")) == '7: combobox "Size"'
    )
    long = element_line(_element(role="text", name="word " * 40, value="v" * 60))
    assert long == f'7: text "{"word " * 15}wo..." value="{"v" * 47}..."'
