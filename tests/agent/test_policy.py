"""The agent's policy on real Chromium: what a model's `open` may reach."""

from __future__ import annotations

from typing import Any

import pytest
from _server import PageServer

from kobrowser import Browser, Policy
from kobrowser.agent import Agent, ScriptedModel

pytestmark = pytest.mark.anyio

TARGET = "/agent-policy-target.html"
SECRET = "correct-horse-9431"
LOGIN = """<!doctype html><title>Login</title>
<label>User <input id="user"></label>
<p id="echo"></p>
<script>
  document.querySelector('input').addEventListener('input', (event) => {
    document.getElementById('echo').textContent = 'typed: ' + event.target.value;
  });
</script>
"""


async def test_the_default_policy_refuses_local_files(open_tab: Any, server: PageServer) -> None:
    start = server.set_page("/agent-policy-start.html", "<title>Start</title><p>hello</p>")
    async with open_tab(start) as tab:
        model = ScriptedModel(["open file:///etc/passwd", "open view-source:" + start, 'done "no"'])
        result = await Agent(tab, model, max_steps=3).run("Read the password file")
        first, second, third = result.steps
        assert first.outcomes[0].ok is False
        assert "refused by policy: file: URLs are off" in (first.outcomes[0].message or "")
        assert "refused by policy: view-source: URLs" in (second.outcomes[0].message or "")
        assert third.done
        assert tab.url == start
        for messages in model.prompts:
            assert all("root:" not in m["content"] for m in messages)
        # The prompt tells the model why (the refusal, not the file).
        assert "refused by policy" in model.prompts[1][-1]["content"]


async def test_a_blocked_origin_redirect_and_popup(browser: Browser, server: PageServer) -> None:
    server.set_page(TARGET, "<title>Target</title><p>secret target</p>")
    start = server.set_page(
        "/agent-policy-popup.html",
        f"<title>Start</title><button onclick=\"window.open('{server.cross_url(TARGET)}')\">"
        "popup</button>",
    )
    redirect = server.set_page(
        "/agent-policy-redirect", "", status=302, headers={"Location": server.cross_url(TARGET)}
    )
    policy = Policy(block_origins=("http://localhost:*",))
    async with await browser.new_context() as ctx:
        tab = await ctx.new_tab(start)

        def click_popup(messages: list[Any]) -> str:
            line = next(
                line for line in messages[-1]["content"].splitlines() if 'button "popup"' in line
            )
            return "click " + line.split(":")[0].strip()

        model = ScriptedModel(
            [f"open {server.cross_url(TARGET)}", f"open {redirect}", f"open {start}",
             click_popup, 'done "blocked"']
        )  # fmt: skip
        result = await Agent(tab, model, max_steps=5, max_failures=5, policy=policy).run(
            "Reach the target"
        )
        assert ctx.policy is policy
        messages = [o.message or "" for step in result.steps for o in step.outcomes]
        assert "block_origins 'http://localhost:*'" in messages[0]
        assert "BLOCKED_BY_CLIENT" in messages[1]
        assert result.done
        assert not any(r.path == TARGET for r in server.requests)
        for prompt in model.prompts:
            assert all("secret target" not in m["content"] for m in prompt)


async def test_a_secret_never_reaches_the_model_of_the_agent(
    browser: Browser, server: PageServer
) -> None:
    url = server.set_page("/secret-agent.html", LOGIN)
    async with await browser.new_context() as ctx:
        tab = await ctx.new_tab(url)

        def fill(messages: list[Any]) -> str:
            line = next(
                line for line in messages[-1]["content"].splitlines() if 'textbox "User"' in line
            )
            return "fill " + line.split(":")[0].strip() + " {{password}}"

        model = ScriptedModel([fill, 'done "filled"'])
        policy = Policy(secrets={"password": SECRET})
        result = await Agent(tab, model, policy=policy).run("Log in with {{password}}")
        assert result.done
        assert await tab.evaluate("document.getElementById('user').value") == SECRET
        assert len(model.prompts) == 2
        assert "{{password}}" in model.prompts[1][-1]["content"]  # the echo, masked
        for messages in model.prompts:
            assert all(SECRET not in m["content"] for m in messages)
