"""Daemon side of ``ko-browser batch`` and ``ko-browser agent``.

Both run on the session's browser (its current tab), hold the session's tab
lock for their whole run, and send one progress line per action (batch) or
per step (agent) before their reply, so the client prints as they go.

``batch`` parses every line first: a malformed line is a usage error (exit
2) and nothing runs. Then it runs the actions in order with
:func:`kobrowser.actions.execute`, stopping at the first failure unless
``keep_going``; any failure makes the command fail (exit 1).

``agent`` runs :class:`kobrowser.agent.Agent` with an
:class:`~kobrowser.agent.OpenAIChat` model built from the client's settings;
done is success, giving up is a failure (exit 1).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import kobrowser
from kobrowser import InvalidArgumentError, Policy
from kobrowser.actions import parse_actions
from kobrowser.cli._daemon._context import Args, Command, Context, Result
from kobrowser.cli._daemon._errors import CommandError, UsageError

__all__ = ["COMMANDS", "AgentGaveUp", "BatchFailed"]

_HINTS = {
    "StaleElementError": "run `ko-browser snapshot` and use the new ids",
    "NoSnapshotError": "run `ko-browser snapshot` first",
    "UnknownElementError": "run `ko-browser snapshot` and use its ids",
    "NotInteractableError": "run `ko-browser snapshot` to see the page as it is now",
    "WrongElementKindError": "check the element's role in `ko-browser snapshot`",
    "NavigationError": "check the URL and that the site is reachable",
}


class BatchFailed(CommandError):
    """An action of a batch failed (each outcome was printed as it ran)."""


class AgentGaveUp(CommandError):
    """The agent stopped without reaching its goal."""


async def batch(ctx: Context, args: Args) -> Result:
    source = args.text("source") or "input"
    try:
        actions = parse_actions(args.text("text"))
    except kobrowser.ActionSyntaxError as exc:
        raise UsageError(f"{source}: {exc}; nothing was run") from None
    if not actions:
        raise UsageError(f"{source}: no action lines; nothing was run")
    ctx.tab()  # one must be open
    keep_going = args.flag("keep_going")
    failed: list[int] = []
    outcomes: list[dict[str, Any]] = []
    for index, action in enumerate(actions, 1):
        if failed and not keep_going:
            break
        outcome = await ctx.browser.do(action, timeout=ctx.timeout)
        entry = {"index": index, **outcome.to_dict()}
        outcomes.append(entry)
        text = str(outcome)
        if not outcome.ok:
            failed.append(index)
            hint = _HINTS.get(outcome.error or "")
            text += f"; {hint}" if hint else ""
        await ctx.progress(entry, text)
    result = {"actions": len(actions), "ran": len(outcomes), "failed": failed}
    if failed:
        not_run = len(actions) - len(outcomes)
        message = f"{len(failed)} of {len(actions)} actions failed (line {failed[0]} first)"
        hint = f"{not_run} not run; --keep-going runs the rest after a failure" if not_run else ""
        raise BatchFailed(message, hint)
    return {**result, "outcomes": outcomes}, f"{len(actions)} actions done"


async def agent(ctx: Context, args: Args) -> Result:
    from kobrowser.agent import Agent, OpenAIChat, Step

    ctx.tab()  # one must be open
    base_url = args.optional_text("base_url") or None
    # The client resolved the key from its own environment; without one (a
    # local server) a placeholder is sent, never the daemon's older environment.
    api_key = args.optional_text("api_key") or ("not-needed" if base_url else None)
    model = OpenAIChat(args.text("model"), base_url=base_url, api_key=api_key)
    max_steps = args.optional_whole("max_steps")
    files = args.optional_text("allow_file_access")
    downloads = args.optional_text("download_dir")
    try:
        policy = Policy(
            allow_origins=tuple(args.optional_texts("allow_origin") or ()),
            block_origins=tuple(args.optional_texts("block_origin") or ()),
            allow_file_access=None if files is None else Path(files),
            download_dir=None if downloads is None else Path(downloads),
            secrets=args.text_map("secrets"),
        )
    except InvalidArgumentError as exc:
        raise UsageError(f"agent: {exc}") from None
    async with model:
        runner = Agent(
            ctx.browser,
            model,
            max_steps=30 if max_steps is None else max_steps,
            interactive=args.flag("interactive"),
            timeout=ctx.timeout,
            policy=policy,
        )

        async def on_step(step: Step) -> None:
            await ctx.progress(step.to_dict(), str(step))

        trace = args.optional_text("trace")
        async with contextlib.AsyncExitStack() as stack:
            if args.flag("view"):  # its URL is the first line the client prints
                from kobrowser.cli._daemon._view import live_view

                await stack.enter_async_context(live_view(ctx))
            if trace is not None:  # written when the run ends, whatever its end
                await stack.enter_async_context(
                    ctx.browser.tracing(trace, title="ko-browser agent")
                )
            result = await runner.run(args.text("goal"), on_step=on_step)
    summary = {
        "done": result.done,
        "answer": result.answer,
        "reason": result.reason,
        "steps": len(result.steps),
    }
    if not result.done:
        why = {
            "max_failures": f"{runner.max_failures} failing steps in a row",
            "max_steps": f"{runner.max_steps} steps without reaching the goal",
        }.get(result.reason, result.reason)
        raise AgentGaveUp(f"the agent gave up: {why}", "see the steps above; rephrase the goal")
    return summary, result.answer or "(done)"


COMMANDS: dict[str, Command] = {
    "batch": Command(batch, serialized=True, streaming=True),
    "agent": Command(agent, serialized=True, streaming=True),
}
