"""The prompt and the scripted model, without a browser."""

from __future__ import annotations

import pytest

import kobrowser
from kobrowser import actions as A
from kobrowser.actions import Outcome
from kobrowser.agent import (
    Message,
    ScriptedModel,
    Step,
    build_messages,
    outcome_text,
    system_prompt,
    token_counter,
)

pytestmark = pytest.mark.anyio


def test_the_system_prompt_shows_every_verb_once_and_parses_back() -> None:
    prompt = system_prompt(3)
    assert "Reply with 1 to 3 actions" in prompt
    grammar = prompt.split("Actions:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert len(grammar) == len(A.VERBS)
    for line, example in zip(grammar, A.USAGE.values(), strict=True):
        assert line.startswith(example)
        # The example (without the note after it) is a valid, canonical action.
        assert str(kobrowser.parse_action(example)) == example
    assert token_counter()(prompt) < 400


def step(number: int, *outcomes: Outcome, error: str | None = None) -> Step:
    return Step(
        number=number,
        url="http://x.test/",
        title="X",
        snapshot_tokens=1,
        prompt_tokens=2,
        reply="",
        actions=[o.action for o in outcomes],
        outcomes=list(outcomes),
        error=error,
    )


def test_build_messages_history_tabs_and_page() -> None:
    ok = Outcome(action=A.Click(5), ok=True, message="clicked 5")
    stale = Outcome(
        action=A.Fill(3, "a"), ok=False, error="StaleElementError", message="element 3 is gone"
    )
    skipped = Outcome(action=A.Press("Enter"), ok=False, skipped=True, message="the page navigated")
    steps = [step(1, ok), step(2, ok, stale, skipped), step(3, error="Your reply had no action.")]
    messages = build_messages(
        goal="  Buy milk ",
        steps=steps,
        history=2,
        max_actions=3,
        url="http://shop.test/",
        snapshot='Page: "Shop"\n\n1: button "Buy"\n',
        tabs=["http://a.test/", "http://shop.test/"],
        current_tab=2,
    )
    assert [m["role"] for m in messages] == ["system", "user"]
    user = messages[1]["content"]
    assert user == (
        "Goal: Buy milk\n\n"
        "(1 earlier step not shown)\n\n"
        "Step 2:\n"
        "  click 5 -> clicked 5\n"
        '  fill 3 "a" -> failed: element 3 is gone. The page changed: use the ids of the '
        "snapshot below.\n"
        "  press Enter -> not run: the page navigated\n\n"
        "Step 3:\n  Your reply had no action.\n\n"
        "Tabs: 1: http://a.test/, 2: http://shop.test/ (current)\n\n"
        'URL: http://shop.test/\nPage: "Shop"\n\n1: button "Buy"'
    )
    empty = build_messages(
        goal="g", steps=steps, history=0, max_actions=1, url="about:blank", snapshot=""
    )
    assert (
        empty[1]["content"]
        == "Goal: g\n\n(3 earlier steps not shown)\n\nURL: about:blank\n(empty page)"
    )


def test_outcome_hints() -> None:
    for error, words in (
        ("UnknownElementError", "Use an id of the snapshot below."),
        ("NotInteractableError", "hidden, disabled or covered"),
        ("NavigationError", "Check the URL."),
        ("WaitTimeoutError", "still be busy"),
        ("KoBrowserError", ""),
    ):
        text = outcome_text(Outcome(action=A.Back(), ok=False, error=error, message="boom"))
        assert text.startswith("back -> failed: boom") and words in text


async def test_scripted_model() -> None:
    async def later(messages: list[Message]) -> str:
        return "async " + messages[-1]["content"]

    model = ScriptedModel(["fixed", lambda m: "sync " + m[-1]["content"], later])
    for expected in ("fixed", "sync b", "async c"):
        assert await model.complete([Message(role="user", content=expected[-1])]) == expected
    with pytest.raises(kobrowser.ModelError, match="no reply left after 3 call"):
        await model.complete([Message(role="user", content="d")])
    assert [p[0]["content"] for p in model.prompts] == ["d", "b", "c", "d"]
    with pytest.raises(kobrowser.ModelError, match="must be a str"):
        await ScriptedModel([lambda m: 5]).complete([])
