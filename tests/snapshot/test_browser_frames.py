"""Frames in a real Chromium: same-origin, out-of-process, nested, srcdoc,
about:blank, many frames, frames removed or crashed during a snapshot.

127.0.0.1 (``server.url``) and localhost (``server.cross_url``) are different
sites, so a frame from the other one is out-of-process with its own session.
Expected texts are written from docs/snapshot-format.md by hand.
"""

from __future__ import annotations

import random
import textwrap
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from _server import PageServer

import kobrowser
from kobrowser import Tab
from kobrowser.cdp import BatchCall, CDPSession, Connection

from ._browser_helpers import assert_consistent, page
from .conftest import OpenTab

pytestmark = [pytest.mark.anyio, pytest.mark.each_transport]  # same answers on every transport


def expect(title: str, lines: str) -> str:
    return f'Page: "{title}"\n\n' + textwrap.dedent(lines).strip("\n") + "\n"


def frame_sessions(tab: Tab) -> dict[str, CDPSession]:
    """Frame id -> session of the tab's out-of-process frames."""
    return {f.frame_id: f.session for f in tab._frames.frames()}


def top_frame_id(tab: Tab) -> str:
    snap = tab.last_snapshot
    assert snap is not None
    return snap.id_map[1].frame_id


# --- one frame --------------------------------------------------------------


async def test_same_origin_frame(server: PageServer, open_tab: OpenTab) -> None:
    server.set_page("/child.html", page("<h2>Child</h2><button>Inside</button>", title="C"))
    url = server.set_page(
        "/parent.html",
        page(
            '<button>Top</button><iframe title="Child" src="/child.html"></iframe>'
            "<button>After</button>",
            title="Parent",
        ),
    )
    async with open_tab(url) as tab:
        snap = await tab.snapshot()
        assert_consistent(snap)
        assert snap.text == expect(
            "Parent",
            """
            1: button "Top"
            2: iframe "Child"
              3: heading "Child"
              4: button "Inside"
            5: button "After"
            """,
        )
        assert frame_sessions(tab) == {}  # same process: no frame session
        top = snap.id_map[1].frame_id
        inner = snap.id_map[3]
        assert inner.frame_id != top
        assert snap.id_map[2].frame_id == top  # the iframe element lives in the parent
        assert inner.session is tab.cdp
        assert snap.id_map[4].frame_id == inner.frame_id
        assert inner.loader_id and inner.loader_id != snap.id_map[1].loader_id


@pytest.mark.parametrize("top_on_localhost", [False, True], ids=["127-top", "localhost-top"])
async def test_cross_origin_frame(
    server: PageServer, open_tab: OpenTab, top_on_localhost: bool
) -> None:
    server.set_page("/child.html", page("<button>Pay</button>", title="C"))
    child = server.url("/child.html") if top_on_localhost else server.cross_url("/child.html")
    server.set_page(
        "/parent.html",
        page(
            f'<button>Top</button><iframe title="Payment" src="{child}"></iframe>'
            "<button>After</button>",
            title="Parent",
        ),
    )
    url = server.cross_url("/parent.html") if top_on_localhost else server.url("/parent.html")
    async with open_tab(url) as tab:
        snap = await tab.snapshot()
        assert_consistent(snap)
        assert snap.text == expect(
            "Parent",
            """
            1: button "Top"
            2: iframe "Payment"
              3: button "Pay"
            4: button "After"
            """,
        )
        sessions = frame_sessions(tab)
        assert len(sessions) == 1
        [(frame_id, session)] = sessions.items()
        pay = snap.id_map[3]
        assert pay.frame_id == frame_id
        assert pay.session is session
        assert pay.session is not tab.cdp
        for i in (1, 2, 4):
            assert snap.id_map[i].session is tab.cdp
            assert snap.id_map[i].frame_id != frame_id


async def test_three_levels_nested_alternating_origins(
    server: PageServer, open_tab: OpenTab
) -> None:
    # 127.0.0.1 > localhost > 127.0.0.1 > localhost: every level is out-of-process
    # relative to its parent, so each is a session attached to its parent's session.
    origins = [server.url, server.cross_url, server.url, server.cross_url]
    for level in range(3, 0, -1):
        nested = (
            f'<iframe title="Level {level + 1}" src="{origins[level + 1]("/l" + str(level + 1))}">'
            "</iframe>"
            if level < 3
            else ""
        )
        server.set_page(f"/l{level}", page(f"<button>Level {level}</button>{nested}"))
    url = server.set_page(
        "/l0",
        page(
            f'<button>Level 0</button><iframe title="Level 1" src="{origins[1]("/l1")}"></iframe>'
            "<button>End</button>",
            title="Nest",
        ),
    )
    async with open_tab(url) as tab:
        snap = await tab.snapshot()
        assert_consistent(snap)
        assert snap.text == expect(
            "Nest",
            """
            1: button "Level 0"
            2: iframe "Level 1"
              3: button "Level 1"
              4: iframe "Level 2"
                5: button "Level 2"
                6: iframe "Level 3"
                  7: button "Level 3"
            8: button "End"
            """,
        )
        frames = {f.frame_id: f for f in tab._frames.frames()}
        assert len(frames) == 3
        level1, level2, level3 = (snap.id_map[i] for i in (3, 5, 7))
        assert frames[level1.frame_id].parent is tab.cdp
        assert frames[level2.frame_id].parent is level1.session
        assert frames[level3.frame_id].parent is level2.session
        sessions = [tab.cdp, level1.session, level2.session, level3.session]
        assert len({id(s) for s in sessions}) == 4
        for element, session in zip((level1, level2, level3), sessions[1:], strict=True):
            assert frames[element.frame_id].session is session
        # The iframe elements themselves live in their parent's document.
        assert snap.id_map[4].session is level1.session
        assert snap.id_map[6].session is level2.session


async def test_srcdoc_and_about_blank_frames(server: PageServer, open_tab: OpenTab) -> None:
    body = """
    <iframe title="Doc" srcdoc="&lt;button&gt;In srcdoc&lt;/button&gt;"></iframe>
    <iframe title="Written" id="written"></iframe>
    <iframe title="Blank" src="about:blank"></iframe>
    <iframe title="Nothing"></iframe>
    <script>
      const doc = document.getElementById('written').contentDocument;
      doc.open();
      doc.write('<h1>Written</h1><button>In blank</button>');
      doc.close();
    </script>
    """
    url = server.set_page("/blank.html", page(body, title="Blank frames"))
    async with open_tab(url) as tab:
        snap = await tab.snapshot()
        assert_consistent(snap)
        assert snap.text == expect(
            "Blank frames",
            """
            1: iframe "Doc"
              2: button "In srcdoc"
            3: iframe "Written"
              4: heading "Written"
              5: button "In blank"
            6: iframe "Blank"
            7: iframe "Nothing"
            """,
        )
        top = snap.id_map[1].frame_id
        assert snap.id_map[2].frame_id not in (top, snap.id_map[4].frame_id)
        assert snap.id_map[4].frame_id != top
        assert snap.id_map[2].session is tab.cdp


async def test_twenty_frames_mixed_origins(server: PageServer, open_tab: OpenTab) -> None:
    frames = []
    for i in range(20):
        server.set_page(f"/f{i}.html", page(f"<h3>Heading {i}</h3><button>Button {i}</button>"))
        src = server.cross_url(f"/f{i}.html") if i % 2 else f"/f{i}.html"
        frames.append(f'<iframe title="Frame {i}" src="{src}"></iframe>')
    body = "<button>First</button>" + "".join(frames) + "<button>Last</button>"
    url = server.set_page("/twenty.html", page(body, title="Twenty"))
    expected = ['1: button "First"']
    for i in range(20):
        n = 2 + 3 * i
        expected += [
            f'{n}: iframe "Frame {i}"',
            f'  {n + 1}: heading "Heading {i}"',
            f'  {n + 2}: button "Button {i}"',
        ]
    expected.append('62: button "Last"')
    async with open_tab(url) as tab:
        snap = await tab.snapshot()
        assert_consistent(snap)
        assert snap.text == expect("Twenty", "\n".join(expected))
        sessions = frame_sessions(tab)
        assert len(sessions) == 10
        frame_ids = set()
        for i in range(20):
            button = snap.id_map[4 + 3 * i]
            assert button.name == f"Button {i}"
            frame_ids.add(button.frame_id)
            if i % 2:
                assert button.session is sessions[button.frame_id]
            else:
                assert button.session is tab.cdp
                assert button.frame_id not in sessions
        assert len(frame_ids) == 20
        # A second snapshot (owner cache warm) gives the same text.
        again = await tab.snapshot()
        assert again.text == snap.text


async def test_modes_with_frames(server: PageServer, open_tab: OpenTab) -> None:
    server.set_page("/same.html", page('<ul><li><a href="#x">Same link</a></li></ul>'))
    server.set_page(
        "/cross.html", page("<form aria-label='Card'><input aria-label='Number'></form>")
    )
    body = f"""
    <main>
      <h1>Shop</h1>
      <iframe title="Same" src="/same.html" class="same"></iframe>
      <div class="pay"><iframe title="Cross" src="{server.cross_url("/cross.html")}"></iframe></div>
    </main>
    """
    url = server.set_page("/modes.html", page(body, title="Frames"))
    async with open_tab(url) as tab:

        async def snap(**options: Any) -> str:
            result = await tab.snapshot(**options)
            assert_consistent(result)
            return result.text

        assert await snap() == expect(
            "Frames",
            """
            1: main
              2: heading "Shop"
              3: iframe "Same"
                4: list
                  5: listitem
                    6: link "Same link"
              7: iframe "Cross"
                8: form "Card"
                  9: textbox "Number"
            """,
        )
        assert await snap(interactive=True) == expect(
            "Frames",
            """
            1: iframe "Same"
              2: link "Same link"
            3: iframe "Cross"
              4: textbox "Number"
            """,
        )
        assert await snap(compact=True) == expect(
            "Frames",
            """
            1: heading "Shop"
            2: iframe "Same"
              3: link "Same link"
            4: iframe "Cross"
              5: form "Card"
                6: textbox "Number"
            """,
        )
        assert await snap(depth=2) == expect(
            "Frames",
            """
            1: main
              2: heading "Shop"
              3: iframe "Same"
              4: iframe "Cross"
            """,
        )
        assert await snap(selector=".pay") == expect(
            "Frames",
            """
            1: iframe "Cross"
              2: form "Card"
                3: textbox "Number"
            """,
        )
        assert await snap(selector="iframe.same", interactive=True) == expect(
            "Frames",
            """
            1: iframe "Same"
              2: link "Same link"
            """,
        )
        assert await snap(selector="iframe", compact=True, depth=1) == expect(
            "Frames",
            """
            1: iframe "Same"
            2: iframe "Cross"
            """,
        )


# --- frames that go away during a snapshot ---------------------------------


@asynccontextmanager
async def after_top_tree(
    monkeypatch: pytest.MonkeyPatch, tab: Tab, action: Callable[[], Awaitable[None]]
) -> AsyncIterator[list[str]]:
    """Run ``action`` once the top document's AX tree is in, before any other frame is read.

    The snapshot asks for everything in one batch (``Connection.call_many``);
    the hook splits it: the top document's AX tree goes first, alone, then
    ``action`` runs, then the rest of the batch (AX trees of frames, frame
    trees, frame owners) is sent. Yields the methods that waited (so a test
    can check the hook was really in the path).
    """
    original = Connection.call_many
    held: list[str] = []
    started = False

    async def call_many(
        self: Connection, requests: Sequence[BatchCall], *, timeout: float | None = None
    ) -> list[Any]:
        nonlocal started
        top = [
            i
            for i, (session, method, params, _decode) in enumerate(requests)
            if session is tab.cdp
            and method == "Accessibility.getFullAXTree"
            and not (params or {}).get("frameId")
        ]
        if started or not top:
            return await original(self, requests, timeout=timeout)
        started = True
        [first] = await original(self, [requests[top[0]]], timeout=timeout)
        await action()
        rest = [r for i, r in enumerate(requests) if i != top[0]]
        held.extend(method for _session, method, _params, _decode in rest)
        results = await original(self, rest, timeout=timeout)
        results.insert(top[0], first)
        return results

    with monkeypatch.context() as patch:
        patch.setattr(Connection, "call_many", call_many)
        yield held


def _two_frames_page(server: PageServer) -> str:
    server.set_page("/same.html", page("<button>Same inside</button>"))
    server.set_page("/cross.html", page("<button>Cross inside</button>"))
    body = (
        '<button>Before</button><iframe title="Same" src="/same.html"></iframe>'
        f'<iframe title="Cross" src="{server.cross_url("/cross.html")}"></iframe>'
        "<button>After</button>"
    )
    return server.set_page("/two.html", page(body, title="Two"))


TWO_FULL = """
1: button "Before"
2: iframe "Same"
  3: button "Same inside"
4: iframe "Cross"
  5: button "Cross inside"
6: button "After"
"""

TWO_EMPTY = """
1: button "Before"
2: iframe "Same"
3: iframe "Cross"
4: button "After"
"""


GONE = """
1: button "Before"
2: button "After"
"""


@pytest.mark.parametrize("cached", [False, True], ids=["fresh-frame-trees", "cached-frame-trees"])
async def test_iframes_removed_after_top_tree_read(
    server: PageServer, open_tab: OpenTab, monkeypatch: pytest.MonkeyPatch, cached: bool
) -> None:
    async with open_tab(_two_frames_page(server)) as tab:
        assert (await tab.snapshot()).text == expect("Two", TWO_FULL)
        if not cached:
            tab._snapshotter.cache.trees.clear()  # every frame tree is asked for in the batch

        async def remove() -> None:
            await tab.evaluate("document.querySelectorAll('iframe').forEach(f => f.remove())")

        async with after_top_tree(monkeypatch, tab, remove) as held:
            with anyio.fail_after(60):
                snap = await tab.snapshot()
        assert held, "the hook never held a frame call: the fetch path changed"
        assert_consistent(snap)
        if cached:
            # The top frame tree was reused and its frames detached while the
            # AX trees were read: the fetch ran again and sees them gone.
            assert snap.text == expect("Two", GONE)
        else:
            # The top tree was read with both iframes in it; their content is gone.
            assert snap.text == expect("Two", TWO_EMPTY)
        # The next snapshot no longer has the iframes at all.
        snap = await tab.snapshot()
        assert_consistent(snap)
        assert snap.text == expect("Two", GONE)


async def test_cross_origin_frame_crashed_during_snapshot(
    server: PageServer, open_tab: OpenTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with open_tab(_two_frames_page(server)) as tab:
        assert (await tab.snapshot()).text == expect("Two", TWO_FULL)
        [cross] = tab._frames.frames()

        async def crash() -> None:
            with pytest.raises(kobrowser.TargetClosedError):
                await cross.session.send("Page.crash", timeout=10)

        async with after_top_tree(monkeypatch, tab, crash) as held:
            with anyio.fail_after(60):
                snap = await tab.snapshot()
        assert held
        assert_consistent(snap)
        assert snap.text == expect(
            "Two",
            """
            1: button "Before"
            2: iframe "Same"
              3: button "Same inside"
            4: iframe "Cross"
            5: button "After"
            """,
        )


async def test_crashed_cross_origin_frame_gives_empty_iframe(
    server: PageServer, open_tab: OpenTab
) -> None:
    async with open_tab(_two_frames_page(server)) as tab:
        [cross] = tab._frames.frames()
        with pytest.raises(kobrowser.TargetClosedError):
            await cross.session.send("Page.crash", timeout=10)
        for _ in range(2):  # right after the crash, and once things settled
            snap = await tab.snapshot()
            assert_consistent(snap)
            assert snap.text == expect(
                "Two",
                """
                1: button "Before"
                2: iframe "Same"
                  3: button "Same inside"
                4: iframe "Cross"
                5: button "After"
                """,
            )
            await anyio.sleep(0.2)


async def test_crashed_top_page_raises_target_closed(server: PageServer, open_tab: OpenTab) -> None:
    async with open_tab(_two_frames_page(server)) as tab:
        with pytest.raises(kobrowser.TargetClosedError):
            await tab.cdp.send("Page.crash", timeout=10)
        with pytest.raises(kobrowser.TargetClosedError):
            await tab.snapshot()


async def test_iframes_removed_while_snapshots_run(server: PageServer, open_tab: OpenTab) -> None:
    """Frames are removed from JavaScript at random moments during snapshots.

    Every snapshot succeeds; each iframe still printed shows either its whole
    content or nothing (never a partial or foreign tree).
    """
    inside = {}
    for i in range(6):
        inside[f"F{i}"] = f"Inside {i}"
        server.set_page(f"/r{i}.html", page(f"<button>Inside {i}</button>"))
    frames_js = ", ".join(
        f"['F{i}', {server.cross_url(f'/r{i}.html')!r}]" if i % 2 else f"['F{i}', '/r{i}.html']"
        for i in range(6)
    )
    body = f"""
    <button>Before</button><div id="box"></div><button>After</button>
    <script>
      window.addFrames = () => new Promise(resolve => {{
        const box = document.getElementById('box');
        box.replaceChildren();
        let left = 0;
        for (const [title, src] of [{frames_js}]) {{
          const f = document.createElement('iframe');
          f.title = title; f.src = src; left++;
          f.onload = () => {{ if (--left === 0) resolve(true); }};
          box.appendChild(f);
        }}
      }});
      window.removeLater = (ms) => setTimeout(() => {{
        for (const f of [...document.querySelectorAll('iframe')]) f.remove();
      }}, ms);
    </script>
    """
    url = server.set_page("/removal.html", page(body, title="Removal"))
    rng = random.Random(1234)
    seen_empty = seen_full = 0
    async with open_tab(url) as tab:
        for round_ in range(12):
            assert await tab.evaluate("addFrames()") is True
            await tab._frames.settled()
            # Every third round removes the frames only once the snapshot is
            # in (under load a 0-40 ms timer may always beat the snapshot, and
            # the rounds would then never see an iframe).
            after = round_ % 3 == 2
            if not after:
                await tab.evaluate(f"removeLater({rng.randrange(0, 40)})")
            snap = await tab.snapshot()
            if after:
                await tab.evaluate("removeLater(0)")
                assert len(snap.nodes) == 8, snap.text  # every frame, whole
            assert_consistent(snap)
            roots = snap.nodes
            assert roots[0].role == "button" and roots[0].name == "Before"
            assert roots[-1].role == "button" and roots[-1].name == "After"
            for element in roots[1:-1]:
                assert element.role == "iframe"
                if element.children:
                    [child] = element.children
                    assert (child.role, child.name) == ("button", inside[element.name])
                    assert not child.children
                    seen_full += 1
                else:
                    seen_empty += 1
            # After the removal ran, the iframes are gone for good.
            await tab.evaluate("new Promise(r => setTimeout(r, 60))")
            snap = await tab.snapshot()
            assert snap.text == expect(
                "Removal",
                """
                1: button "Before"
                2: button "After"
                """,
            )
    print(f"removal rounds: {seen_full} full, {seen_empty} empty iframe lines")
    assert seen_full >= 4 * 6  # at least the rounds that removed after the snapshot


async def test_same_process_frames_inside_out_of_process_frames(
    server: PageServer, open_tab: OpenTab
) -> None:
    # 127 top > A localhost (own session) > B localhost (A's process: on A's
    # session) > C 127 (own session, attached under A's) > D 127 (on C's session).
    server.set_page("/d.html", page("<button>In D</button>"))
    server.set_page(
        "/c.html", page('<button>In C</button><iframe title="D" src="/d.html"></iframe>')
    )
    server.set_page(
        "/b.html",
        page(f'<button>In B</button><iframe title="C" src="{server.url("/c.html")}"></iframe>'),
    )
    server.set_page(
        "/a.html", page('<button>In A</button><iframe title="B" src="/b.html"></iframe>')
    )
    url = server.set_page(
        "/top.html",
        page(f'<iframe title="A" src="{server.cross_url("/a.html")}"></iframe>', title="Mixed"),
    )
    async with open_tab(url) as tab:
        snap = await tab.snapshot()
        assert_consistent(snap)
        assert snap.text == expect(
            "Mixed",
            """
            1: iframe "A"
              2: button "In A"
              3: iframe "B"
                4: button "In B"
                5: iframe "C"
                  6: button "In C"
                  7: iframe "D"
                    8: button "In D"
            """,
        )
        frames = {f.frame_id: f for f in tab._frames.frames()}
        a, b, c, d = (snap.id_map[i] for i in (2, 4, 6, 8))
        assert set(frames) == {a.frame_id, c.frame_id}
        assert a.session is frames[a.frame_id].session
        assert b.session is a.session and b.frame_id != a.frame_id
        assert c.session is frames[c.frame_id].session
        assert frames[c.frame_id].parent is a.session
        assert d.session is c.session and d.frame_id != c.frame_id
        assert len({a.frame_id, b.frame_id, c.frame_id, d.frame_id}) == 4


async def test_frame_navigating_between_processes(server: PageServer, open_tab: OpenTab) -> None:
    for name in ("same1", "same2", "cross1", "cross2"):
        server.set_page(f"/{name}.html", page(f"<button>{name}</button>"))
    body = '<button>Top</button><iframe id="f" title="Swap" src="/same1.html"></iframe>'
    url = server.set_page("/swap.html", page(body, title="Swap"))
    async with open_tab(url) as tab:
        steps = [
            ("/same1.html", False),
            (server.cross_url("/cross1.html"), True),
            ("/same2.html", False),
            (server.cross_url("/cross2.html"), True),
            (server.cross_url("/cross1.html"), True),
        ]
        for index, (src, cross) in enumerate(steps):
            if index:
                loaded = await tab.evaluate(
                    "new Promise(r => { const f = document.getElementById('f');"
                    f" f.onload = () => r(true); f.src = {src!r}; }})"
                )
                assert loaded is True
            name = src.rsplit("/", 1)[1].removesuffix(".html")
            snap = await tab.snapshot()
            assert_consistent(snap)
            assert snap.text == expect(
                "Swap",
                f"""
                1: button "Top"
                2: iframe "Swap"
                  3: button "{name}"
                """,
            )
            inner = snap.id_map[3]
            sessions = frame_sessions(tab)
            if cross:
                assert inner.session is sessions[inner.frame_id]
            else:
                assert inner.session is tab.cdp
                assert sessions == {}


async def test_frame_that_does_not_answer_in_time_gives_empty_iframe(
    server: PageServer, open_tab: OpenTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Chrome answers CDP even while a renderer spins in JavaScript (DevTools
    # runs as a V8 interrupt), so the frame session's silence is simulated at
    # the connection: its calls get no answer before their deadline.
    async with open_tab(_two_frames_page(server)) as tab:
        [cross] = tab._frames.frames()
        original = Connection.call_many
        silenced: list[str] = []

        async def call_many(
            self: Connection, requests: Sequence[BatchCall], *, timeout: float | None = None
        ) -> list[Any]:
            assert timeout is not None
            quiet = [i for i, request in enumerate(requests) if request[0] is cross.session]
            if not quiet:
                return await original(self, requests, timeout=timeout)
            silenced.extend(requests[i][1] for i in quiet)
            heard = [r for i, r in enumerate(requests) if i not in quiet]
            results = await original(self, heard, timeout=timeout)
            await anyio.sleep(timeout)  # the frame's calls get no answer in time
            for i in quiet:
                results.insert(i, kobrowser.CDPTimeoutError(requests[i][1], timeout))
            return results

        with monkeypatch.context() as patch:
            patch.setattr(Connection, "call_many", call_many)
            snap = await tab.snapshot(timeout=1)
        assert "Accessibility.getFullAXTree" in silenced
        assert_consistent(snap)
        assert snap.text == expect(
            "Two",
            """
            1: button "Before"
            2: iframe "Same"
              3: button "Same inside"
            4: iframe "Cross"
            5: button "After"
            """,
        )
        # Once the frame answers again, its content is back.
        assert (await tab.snapshot()).text == expect("Two", TWO_FULL)


async def test_snapshots_while_frames_swap_processes(server: PageServer, open_tab: OpenTab) -> None:
    """Iframes keep navigating between same-origin and cross-origin pages while
    snapshots run: every snapshot succeeds, and each iframe shows nothing or
    exactly one of its pages (never a mix, never another frame's content)."""
    pages = {}
    for i in range(4):
        for kind in ("same", "cross"):
            name = f"{kind} {i}"
            pages[name] = f"/{kind}{i}.html"
            # The button comes with its text in one DOM insertion: parsed as
            # markup, the parser may stop between <button> and its text (it
            # yields on time; under load often), and the page itself then
            # shows an empty button for a moment. So an empty name can only
            # come from the snapshot (a half-built or foreign document).
            server.set_page(
                f"/{kind}{i}.html",
                page(f"<script>document.body.innerHTML = '<button>{name}</button>'</script>"),
            )
    sources = ", ".join(
        f"[{pages[f'same {i}']!r}, {server.cross_url(pages[f'cross {i}'])!r}]" for i in range(4)
    )
    body = f"""
    <button>Top</button>
    {"".join(f'<iframe title="F{i}" src="/same{i}.html"></iframe>' for i in range(4))}
    <script>
      const sources = [{sources}];
      let tick = 0;
      window.startChurn = () => {{
        window.churn = setInterval(() => {{
          tick++;
          document.querySelectorAll('iframe').forEach((f, i) => {{
            f.src = sources[i][(tick + i) % 2];
          }});
        }}, 40);
      }};
    </script>
    """
    url = server.set_page("/churn.html", page(body, title="Churn"))
    async with open_tab(url) as tab:
        await tab.evaluate("startChurn()")
        for _ in range(12):
            snap = await tab.snapshot()
            assert_consistent(snap)
            assert snap.nodes[0].name == "Top"
            frames = snap.nodes[1:]
            assert [f.role for f in frames] == ["iframe"] * 4
            for i, frame in enumerate(frames):
                assert frame.name == f"F{i}"
                if frame.children:
                    [button] = frame.children
                    assert button.role == "button"
                    assert button.name in (f"same {i}", f"cross {i}")
        await tab.evaluate("clearInterval(window.churn)")
        # Once the navigations stop, every frame shows its last page again.
        for _ in range(100):
            await anyio.sleep(0.1)
            snap = await tab.snapshot()
            if all(frame.children for frame in snap.nodes[1:]):
                break
        assert_consistent(snap)
        assert all(len(frame.children) == 1 for frame in snap.nodes[1:]), snap.text


async def test_frame_session_set_up_slower_than_the_snapshot_deadline(
    server: PageServer, open_tab: OpenTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A new out-of-process frame's own auto-attach set-up does not answer: the
    # snapshot waits for it at most its deadline, then goes on without failing.
    # (The frame itself stays paused until its set-up is sent: it is empty.)
    server.set_page("/late.html", page("<button>Late</button>"))
    url = server.set_page("/host.html", page("<button>Top</button>", title="Host"))
    async with open_tab(url) as tab:
        original = Connection.call_many
        release = anyio.Event()
        held: list[str] = []

        async def call_many(
            self: Connection, requests: Sequence[BatchCall], *, timeout: float | None = None
        ) -> list[Any]:
            for session, method, _params, _decode in requests:
                if method == "Target.setAutoAttach" and session is not tab.cdp:
                    held.append(method)
                    await release.wait()
            return await original(self, requests, timeout=timeout)

        with monkeypatch.context() as patch:
            patch.setattr(Connection, "call_many", call_many)
            await tab.evaluate(
                "window.frameLoaded = new Promise(r => {"
                " const f = document.createElement('iframe'); f.title = 'Late';"
                f" f.src = {server.cross_url('/late.html')!r};"
                " f.onload = () => r(true); document.body.appendChild(f); }), 1"
            )
            for _ in range(100):
                if held:
                    break
                await anyio.sleep(0.05)
            assert held, "the frame's set-up was never started"
            try:
                snap = await tab.snapshot(timeout=1)
            finally:
                release.set()
        assert_consistent(snap)
        assert snap.text == expect(
            "Host",
            """
            1: button "Top"
            2: iframe "Late"
            """,
        )
        assert await tab.evaluate("window.frameLoaded") is True
        snap = await tab.snapshot()
        assert snap.text == expect(
            "Host",
            """
            1: button "Top"
            2: iframe "Late"
              3: button "Late"
            """,
        )
