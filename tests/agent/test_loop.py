"""The whole agent loop on real Chromium, with scripted models that only read their prompts."""

from __future__ import annotations

import json
import re
from typing import Any

import anyio
import pytest
from _server import PageServer

import kobrowser
from kobrowser import Browser, Tab
from kobrowser import actions as A
from kobrowser.agent import Agent, Message, ScriptedModel, Step

from ._signup import EMAIL_FRAME, PERSON, SIGNUP, find, page_of, signup_policy

pytestmark = pytest.mark.anyio


def signup_url(server: PageServer) -> str:
    server.set_page("/agent-email.html", EMAIL_FRAME)
    page = SIGNUP.replace("FRAME_URL", server.cross_url("/agent-email.html"))
    return server.set_page("/agent-signup.html", page)


async def form_state(tab: Tab) -> dict[str, Any]:
    raw = await tab.evaluate("JSON.stringify(state)")
    result: dict[str, Any] = json.loads(raw)
    return result


async def test_signup_across_the_page_and_a_cross_origin_frame_with_a_stale_id(
    open_tab: Any, server: PageServer
) -> None:
    async with open_tab(signup_url(server)) as tab:
        rerendered = False

        async def model_reply(messages: list[Message]) -> str:
            nonlocal rerendered
            reply = signup_policy(messages)
            if "so I submit" in reply and not rerendered:
                # While the model "thinks", the page rebuilds the form: the id
                # it read for Submit now names a node that left the page.
                rerendered = True
                await tab.evaluate("rerender()")
            return reply

        model = ScriptedModel(model_reply)
        seen: list[Step] = []
        result = await Agent(tab, model, max_steps=12).run(
            "Sign up as Ada Lovelace from Paris, France, with ada@example.com",
            on_step=seen.append,
        )

        assert result.done and result.reason == "done", "\n".join(map(str, result.steps))
        assert result.answer == ("Registered: Ada Lovelace, Paris, France, ada@example.com"), (
            result.answer
        )
        assert seen == result.steps
        state = await form_state(tab)
        assert {k: state[k] for k in PERSON} == PERSON and state["country"] == "France"
        outcomes = [o for step in result.steps for o in step.outcomes]

        # Choosing the country inserted Region before Last name: the third
        # action of that step was skipped, never run on the shifted id.
        skipped = [o for o in outcomes if o.skipped]
        assert len(skipped) == 1 and isinstance(skipped[0].action, A.Fill)
        assert "changed under element" in skipped[0].message
        assert skipped[0].action.text == "Lovelace"

        # The stale Submit id failed, the model was told, and the next step recovered.
        stale = [i for i, s in enumerate(result.steps) if any(
            o.error == "StaleElementError" for o in s.outcomes)]  # fmt: skip
        assert len(stale) == 1, "\n".join(map(str, result.steps))
        after = result.steps[stale[0] + 1]
        next_prompt = model.prompts[stale[0] + 1][-1]["content"]
        assert "The page changed: use the ids of the snapshot below." in next_prompt
        assert "The form was restored" in next_prompt
        stale_click = result.steps[stale[0]].actions[0]
        assert isinstance(after.actions[0], A.Click) and after.outcomes[0].ok
        assert after.actions[0] != stale_click  # a new id, read from the new snapshot

        # Frame content was acted on through the same loop.
        assert any(str(o.action).startswith("check ") and o.ok for o in outcomes)
        for step, prompts in zip(result.steps, model.prompts, strict=True):
            assert 0 < step.snapshot_tokens < step.prompt_tokens
            assert step.url == tab.url or step.url.endswith("/agent-signup.html")
            assert prompts[0]["role"] == "system" and prompts[1]["role"] == "user"
        assert not any(s.failed for s in result.steps if s is not result.steps[stale[0]])


async def test_interactive_prompt_has_only_interactive_lines(
    open_tab: Any, server: PageServer
) -> None:
    async with open_tab(signup_url(server)) as tab:
        model = ScriptedModel(['done "looked"'])
        result = await Agent(tab, model, interactive=True).run("Look at the form")
        assert result.done and result.answer == "looked"
        snapshot = page_of(model.prompts[0][-1]["content"])
        assert find(snapshot, r'^textbox "First name"') is not None
        assert "Not registered" not in snapshot and "heading" not in snapshot
        full = ScriptedModel(['done ""'])
        await Agent(tab, full).run("Look at the form")
        assert "Not registered" in page_of(full.prompts[0][-1]["content"])


COUNTER = """<!doctype html><title>Counter</title>
<button onclick="document.getElementById('n').textContent = ++window.n">Add</button>
<p id="n">0</p><script>window.n = 0;</script>
<a href="/agent-other.html">Other page</a>
"""


def add_id(messages: list[Message]) -> int:
    found = find(page_of(messages[-1]["content"]), r'^button "Add"')
    assert found is not None
    return found[0]


async def test_errors_are_fed_back_and_consecutive_failures_stop_the_loop(
    open_tab: Any, server: PageServer
) -> None:
    async with open_tab(server.set_page("/agent-counter.html", COUNTER)) as tab:
        model = ScriptedModel(
            [
                "I am not sure what to do.",  # no action
                "tap 5",  # syntax error
                lambda m: f"click {add_id(m)}",  # a success resets the count
                "click 999",  # unknown id (never resolved in a newer snapshot)
                "fill 1 hello world",  # syntax error
                'fill 1 "x"',  # wrong kind (1 is the Add button)
                "open http://127.0.0.1:1/",  # navigation error
            ]
        )
        result = await Agent(tab, model, max_failures=4).run("Press Add")
        assert not result.done and result.reason == "max_failures"
        assert [s.failed for s in result.steps] == [True, True, False, True, True, True, True]
        prompts = [p[-1]["content"] for p in model.prompts]
        assert "Step 1:\n  Your reply had no action" in prompts[1]
        assert (
            "Step 2:\n  Your reply did not parse, nothing was run: line 1, column 1:" in prompts[2]
        )
        assert "(the line: tap 5)" in prompts[2]
        assert "there is no element 999 in the snapshot" in prompts[4]
        assert "quote the text" in prompts[5]
        assert "WrongElementKindError" not in prompts[6] and "cannot fill element 1" in prompts[6]
        last = result.steps[-1].outcomes[0]
        assert last.error == "NavigationError" and "cannot open" in last.message
        errors = [o.error for s in result.steps for o in s.outcomes]
        assert errors == [None, "UnknownElementError", "WrongElementKindError", "NavigationError"]
        assert result.steps[2].outcomes[0].message.startswith("clicked ")


async def test_max_steps_history_and_actions_per_step(open_tab: Any, server: PageServer) -> None:
    async with open_tab(server.set_page("/agent-counter.html", COUNTER)) as tab:

        def four_clicks(messages: list[Message]) -> str:
            return "\n".join([f"click {add_id(messages)}"] * 4)

        model = ScriptedModel(four_clicks)
        result = await Agent(tab, model, max_steps=3, history=1, max_actions_per_step=2).run(
            "Press Add many times"
        )
        assert result.reason == "max_steps" and not result.done and result.answer is None
        assert len(result.steps) == 3
        assert await tab.evaluate("window.n") == 6
        for step in result.steps:
            assert [o.ok for o in step.outcomes] == [True, True, False, False]
            assert all("only 2 actions run per step" in o.message for o in step.outcomes[2:])
            assert not step.failed
        last_prompt = model.prompts[2][-1]["content"]
        assert "(1 earlier step not shown)" in last_prompt
        assert "Step 2:" in last_prompt and "Step 1:" not in last_prompt
        assert "Reply with 1 to 2 actions" in model.prompts[0][0]["content"]


async def test_a_click_that_navigates_skips_the_rest(open_tab: Any, server: PageServer) -> None:
    server.set_page("/agent-other.html", "<!doctype html><title>Other</title><p>Elsewhere</p>")
    async with open_tab(server.set_page("/agent-counter.html", COUNTER)) as tab:

        def navigate_then_press(messages: list[Message]) -> str:
            snapshot = page_of(messages[-1]["content"])
            if "Elsewhere" in snapshot:
                return 'done "arrived"'
            link = find(snapshot, r'^link "Other page"')
            assert link is not None
            return f"click {link[0]}\npress End\nclick {add_id(messages)}"

        result = await Agent(tab, ScriptedModel(navigate_then_press)).run("Go to the other page")
        assert result.done and result.answer == "arrived"
        first = result.steps[0]
        assert [o.ok for o in first.outcomes] == [True, False, False]
        assert "the page navigated" in first.outcomes[1].message
        assert first.outcomes[2].skipped and not first.failed
        assert result.steps[1].title == "Other"


async def test_steps_iterator_stop_and_cancellation(open_tab: Any, server: PageServer) -> None:
    async with open_tab(server.set_page("/agent-counter.html", COUNTER)) as tab:
        agent = Agent(tab, ScriptedModel(lambda m: f"click {add_id(m)}"))
        numbers = []
        async for step in agent.steps("Press Add forever"):
            numbers.append(step.number)
            if step.number == 2:
                break
        assert numbers == [1, 2]
        assert agent.result is not None and agent.result.reason == "stopped"
        assert len(agent.result.steps) == 2

        def stop_after_first(step: Step) -> None:
            agent.stop()

        result = await agent.run("Press Add", on_step=stop_after_first)
        assert result.reason == "stopped" and len(result.steps) == 1

        thinking = anyio.Event()

        async def never(messages: list[Message]) -> str:
            thinking.set()
            await anyio.sleep_forever()
            raise AssertionError("not reached")

        slow = Agent(tab, ScriptedModel(never))
        with anyio.move_on_after(60) as scope:
            async with anyio.create_task_group() as tg:
                tg.start_soon(slow.run, "Wait forever")
                await thinking.wait()
                tg.cancel_scope.cancel()
        assert not scope.cancelled_caught
        assert slow.result is not None and slow.result.steps == []
        # Cancelled cleanly: the agent can run again.
        slow.model = ScriptedModel(['done "ok"'])
        again = await slow.run("Say ok")
        assert again.done and again.answer == "ok"
        with pytest.raises(kobrowser.ModelError, match="no reply left"):
            await Agent(tab, ScriptedModel([])).run("Say nothing")


async def test_a_browser_agent_follows_tab_switches(browser: Browser, server: PageServer) -> None:
    first = await browser.new_tab(server.set_page("/agent-counter.html", COUNTER))
    second = await browser.new_tab(
        server.set_page("/agent-other.html", "<!doctype html><title>Other</title><p>Elsewhere</p>")
    )
    try:

        def policy(messages: list[Message]) -> str:
            prompt = messages[-1]["content"]
            tabs = re.search(r"^Tabs: (.*)$", prompt, re.M)
            assert tabs is not None, prompt
            if "Elsewhere" in page_of(prompt):
                number = re.search(r"(\d+): \S+/agent-counter\.html", tabs.group(1))
                assert number is not None
                return f"tab {number.group(1)}\nclick 1"
            return f'click {add_id(messages)}\ndone "clicked"'

        assert browser.tab is second
        result = await Agent(browser, ScriptedModel(policy)).run("Press Add in the counter tab")
        assert result.done, "\n".join(map(str, result.steps))
        assert browser.tab is first
        assert "the current tab changed" in result.steps[0].outcomes[1].message
        assert await first.evaluate("window.n") == 1
    finally:
        await second.close()
        await first.close()


def test_agent_arguments_are_checked() -> None:
    model = ScriptedModel([])
    with pytest.raises(ValueError, match="max_steps"):
        Agent(None, model, max_steps=0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="history"):
        Agent(None, model, history=-1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="complete"):
        Agent(None, object())  # type: ignore[arg-type]
