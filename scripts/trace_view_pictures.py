"""Take the pictures of docs/guide/trace-and-view.md: a trace opened in Chromium, the live view.

Run from the repository root: ``python scripts/trace_view_pictures.py``. It
serves a small to-do page on 127.0.0.1, records a scripted agent run with
``browser.tracing``, opens the trace offline in a second tab and takes its
screenshot (docs/trace.png), then serves the live view of the same browser,
opens it in a second Chromium and takes its screenshot (docs/live-view.png).
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import anyio

import kobrowser
from kobrowser.agent import Agent, Message, ScriptedModel
from kobrowser.view import LiveView

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from _server import PageServer  # noqa: E402

TODO = """<!doctype html><title>Groceries</title>
<style>body{font:18px system-ui,sans-serif;margin:40px;background:#fafafa}
input{font:inherit;padding:6px} button{font:inherit;padding:6px 14px}
li{margin:6px 0}</style>
<h1>Groceries</h1>
<input aria-label="New item"> <button id=add>Add</button>
<ul id=list></ul>
<script>
document.getElementById('add').onclick = async () => {
  const input = document.querySelector('input');
  const li = document.createElement('li');
  li.textContent = input.value;
  document.getElementById('list').append(li);
  console.log('added ' + input.value);
  await fetch('/api/items?name=' + encodeURIComponent(input.value));
  input.value = '';
};
</script>"""
ITEMS = ["milk", "bread", "apples"]


def _reply(messages: list[Message]) -> str:
    prompt = messages[-1]["content"]
    done = re.findall(r'listitem\s*\n\s*\d+: text "([^"]+)"', prompt)
    if len(done) >= len(ITEMS):
        return 'done "the list has milk, bread and apples"'
    box = re.search(r'(\d+): textbox "New item"(?: value="([^"]*)")?', prompt)
    add = re.search(r'(\d+): button "Add"', prompt)
    assert box and add, prompt
    if box.group(2):
        return f"I typed the item, so I add it.\nclick {add.group(1)}"
    return f'The next item goes in the box.\nfill {box.group(1)} "{ITEMS[len(done)]}"'


async def main() -> None:
    server = PageServer().start()
    server.set_page("/api/items", "{}", content_type="application/json")
    url = server.set_page("/groceries.html", TODO)
    with tempfile.TemporaryDirectory() as folder:
        trace_path = Path(folder) / "run.html"
        async with kobrowser.launch() as browser:
            tab = await browser.new_tab(url)
            await tab.set_viewport(900, 600)
            async with browser.tracing(trace_path, title="groceries run"):
                await Agent(browser, ScriptedModel(_reply), max_actions_per_step=1).run(
                    "put milk, bread and apples on the list"
                )
            # The agent's policy refuses file: URLs in its context: open the trace in another.
            context = await browser.new_context()
            viewer = await context.new_tab(trace_path.as_uri())
            await viewer.set_viewport(1280, 860)
            await viewer.evaluate(
                "location.hash = 'step-4';"
                " new Promise(done => setTimeout(() => { scrollTo(0, 0); done(0); }, 100))"
            )
            await viewer.screenshot(ROOT / "docs" / "trace.png")
            await context.close()

            await browser.switch_to(tab)
            view = LiveView(browser)
            async with anyio.create_task_group() as group, kobrowser.launch() as second:
                ready = anyio.Event()
                address: list[str] = []

                async def announce(link: str) -> None:
                    address.append(link)
                    ready.set()

                group.start_soon(view.run, announce)
                await ready.wait()
                page = await second.new_tab(address[0])
                await page.set_viewport(1400, 720)
                await page.wait_for_selector("#picture", state="visible")
                snap = await tab.snapshot()
                box = next(e.id for e in snap.id_map.values() if e.role == "textbox")
                await tab.fill(box, "coffee")
                add = next(e.id for e in snap.id_map.values() if e.name == "Add")
                await tab.click(add)
                await tab.snapshot()
                await page.wait_for_text("click")
                await anyio.sleep(1)  # the next screencast frame
                await page.screenshot(ROOT / "docs" / "live-view.png")
                group.cancel_scope.cancel()
    server.stop()


if __name__ == "__main__":
    anyio.run(main)
