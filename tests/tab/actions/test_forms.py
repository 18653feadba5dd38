"""Forms: React 18 controlled inputs, typing with delay, wrong kinds, scroll."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kobrowser import InvalidArgumentError, WrongElementKindError

from ._pages import find, top_log

pytestmark = pytest.mark.anyio

REACT_APP = """
<div id="root"></div>
<script src="VENDOR/react.production.min.js"></script>
<script src="VENDOR/react-dom.production.min.js"></script>
<script>
const e = React.createElement;
function App() {
  const [name, setName] = React.useState('');
  const [note, setNote] = React.useState('');
  return e('form', {onSubmit: (ev) => ev.preventDefault()},
    e('input', {'aria-label': 'Name', value: name,
      onChange: (ev) => setName(ev.target.value.toUpperCase())}),
    e('textarea', {'aria-label': 'Note', value: note, onChange: (ev) => setNote(ev.target.value)}),
    e('output', {id: 'echo'}, 'Hello ' + name + '|' + note));
}
ReactDOM.createRoot(document.getElementById('root')).render(e(App));
</script>
"""


async def test_fill_react_controlled_inputs(
    open_tab: Any, page_url: Any, react_vendor: str
) -> None:
    async with open_tab(page_url(REACT_APP.replace("VENDOR", react_vendor))) as tab:
        await tab.wait_for_function("document.querySelector('input') !== null")
        snap = await tab.snapshot()
        name, note = find(snap, "textbox", "Name"), find(snap, "textbox", "Note")
        await tab.fill(name.id, "ada")
        await tab.fill(note.id, "first\nsecond")
        await tab.wait_for_function("document.getElementById('echo').textContent.length > 6")
        assert await tab.evaluate("document.getElementById('echo').textContent") == (
            "Hello ADA|first\nsecond"
        )
        assert await tab.value(name.id) == "ADA"  # React rendered its state back
        await tab.fill(name.id, "grace")
        await tab.type(name.id, "!")
        assert await tab.value(name.id) == "GRACE!"
        assert await tab.evaluate("document.getElementById('echo').textContent") == (
            "Hello GRACE!|first\nsecond"
        )
        await tab.fill(name.id, "")
        assert await tab.evaluate("document.getElementById('echo').textContent") == (
            "Hello |first\nsecond"
        )


async def test_type_with_delay_sends_every_key(open_tab: Any, page_url: Any) -> None:
    async with open_tab(page_url('<input id="t" aria-label="Search">')) as tab:
        snap = await tab.snapshot()
        search = find(snap, "textbox", "Search")
        await tab.type(search.id, "Hi, you 2!", delay=20)
        assert await tab.value(search.id) == "Hi, you 2!"
        downs = [e["key"] for e in await top_log(tab, "keydown") if e["key"] != "Shift"]
        assert downs == list("Hi, you 2!")
        inputs = await top_log(tab, "input")
        assert len(inputs) == 10 and all(e["trusted"] for e in inputs)


async def test_fill_special_inputs(open_tab: Any, page_url: Any) -> None:
    body = (
        '<input id="d" type="date" aria-label="Day"><input id="n" type="number" aria-label="Qty">'
        '<input id="r" aria-label="Locked" readonly value="x">'
    )
    async with open_tab(page_url(body)) as tab:
        snap = await tab.snapshot()
        await tab.fill(find(snap, "spinbutton", "Qty").id, "42")
        assert await tab.evaluate("document.getElementById('n').value") == "42"
        day = find(snap, "textbox", "Day")
        await tab.fill(day.id, "2024-02-29")
        assert await tab.evaluate("document.getElementById('d').value") == "2024-02-29"
        with pytest.raises(WrongElementKindError, match="read-only"):
            await tab.fill(find(snap, "textbox", "Locked").id, "y")


async def test_wrong_kinds(open_tab: Any, page_url: Any, tmp_path: Path) -> None:
    file = tmp_path / "a.txt"
    file.write_text("a")
    body = (
        '<button id="b">Go</button><input id="t" aria-label="Name">'
        '<input type="checkbox" id="c" aria-label="Agree"><a href="#x">Link</a>'
    )
    async with open_tab(page_url(body)) as tab:
        snap = await tab.snapshot()
        go, name = find(snap, "button", "Go"), find(snap, "textbox", "Name")
        agree, link = find(snap, "checkbox", "Agree"), find(snap, "link", "Link")
        cases = [
            (tab.fill(go.id, "x"), go.id),
            (tab.fill(agree.id, "x"), agree.id),
            (tab.select(go.id, "x"), go.id),
            (tab.select(name.id, "x"), name.id),
            (tab.check(go.id), go.id),
            (tab.check(link.id), link.id),
            (tab.uncheck(name.id), name.id),
            (tab.upload(name.id, file), name.id),
            (tab.upload(go.id, file), go.id),
            (tab.is_checked(go.id), go.id),
        ]
        for coro, element_id in cases:
            with pytest.raises(WrongElementKindError) as info:
                await coro
            assert info.value.element_id == element_id
            assert f"element {element_id} " in str(info.value)
        with pytest.raises(InvalidArgumentError, match=r"missing\.txt"):
            await tab.upload(name.id, tmp_path / "missing.txt")
        assert await top_log(tab, "click", "input", "change") == []


async def test_scroll(open_tab: Any, page_url: Any) -> None:
    async with open_tab(page_url('<div style="height:5000px;width:5000px">tall</div>')) as tab:
        await tab.snapshot()
        await tab.scroll("down", 600)
        await tab.wait_for_function("window.scrollY > 0")
        down = await tab.evaluate("window.scrollY")
        assert down > 0
        await tab.scroll("right", 300)
        await tab.wait_for_function("window.scrollX > 0")
        await tab.scroll("up", 600)
        await tab.wait_for_function(f"window.scrollY < {down}")
        wheels = await top_log(tab, "wheel")
        assert len(wheels) == 3 and all(e["trusted"] for e in wheels)
        with pytest.raises(ValueError):
            await tab.scroll("sideways")
