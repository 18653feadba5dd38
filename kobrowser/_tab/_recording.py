"""The action-recording hook: every action made on a tab reaches its recorders.

A recorder (a trace, the live view) is attached to one tab or to the whole
browser. The tab's action methods (``click``, ``fill``, ``open``, ``do``,
waits, ``evaluate``...) are wrapped by :func:`recorded`: with no recorder
attached the wrapper costs one check of two empty tuples; with one, the
action becomes a :class:`Step` (its line in the action grammar, the element
it acts on, timing and outcome) that each recorder sees begin and end.

Whatever reaches the tab reaches the hook: the library's Tab and Browser
verbs, ``do`` lines, the CLI daemon, MCP and the agent loop (which all act
through these methods). A step made inside another (``do("click 5")`` runs
``click``) is part of the outer one, never a step of its own.

The agent loop hands the model's reply over with :func:`note_next`: the
next step begun in the same task carries it.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from kobrowser.actions import Action, to_action
from kobrowser.actions._types import quote

__all__ = [
    "Recorder",
    "Step",
    "action_line",
    "note_next",
    "recorded",
    "run_step",
    "unrecorded",
]

P = ParamSpec("P")
R = TypeVar("R")


@dataclass(slots=True, eq=False)
class Step:
    """One recorded action.

    Attributes:
        line: the action as a line of the action grammar (``click 5``);
            actions without a grammar form read alike (``drag 3 7``).
        tab: the tab it acted on (a :class:`~kobrowser.Tab`).
        element_id: the snapshot id it acted on, if any.
        note: the model's reply that asked for it (agent loop), if any.
        started: wall-clock start, seconds since the epoch.
        duration: seconds it took (set when it ended).
        ok: False when it raised.
        error: the error's class and message when it raised.
        state: each recorder's own notes on the step, by recorder (kept
            with the step, so a step that never ends leaves nothing behind).
    """

    line: str
    tab: Any
    element_id: int | None
    note: str | None = None
    started: float = 0.0
    duration: float = 0.0
    ok: bool = True
    error: str | None = None
    state: dict[object, Any] = field(default_factory=dict)


class Recorder(Protocol):
    """What a recorder does with each step, before and after it runs."""

    async def begin(self, step: Step) -> None:
        """The step is about to run: mark what is seen before it.

        It may hold the step back (the live view, while a person has taken
        over); the step's time is counted from when it returns.
        """
        ...

    async def end(self, step: Step) -> None:
        """The step ran (``ok``, ``error`` and ``duration`` are set)."""
        ...


_ACTIVE: contextvars.ContextVar[Step | None] = contextvars.ContextVar(
    "kobrowser_recording_step", default=None
)
_NOTE: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "kobrowser_recording_note", default=None
)


_QUIET = Step("", None, None)


@contextlib.contextmanager
def unrecorded() -> Iterator[None]:
    """Run the block's actions as nobody's steps (the library's own reads and waits)."""
    token = _ACTIVE.set(_QUIET)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def note_next(text: str | None) -> None:
    """Attach ``text`` (a model's reply) to the next step begun in this task."""
    _NOTE.set(text)


def _word(value: object) -> str:
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, (list, tuple)):
        return " ".join(_word(v) for v in value)
    return str(value)


def _is_default(value: object, default: object) -> bool:
    if isinstance(value, (list, tuple)) and isinstance(default, (list, tuple)):
        return list(value) == list(default)
    return value is default or (type(value) is type(default) and value == default)


def action_line(
    verb: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    defaults: dict[str, Any] | None = None,
) -> str:
    """The grammar line of a method call (``fill 3 "hi"``), or a look-alike.

    Keyword arguments equal to the method's ``defaults`` (and ``timeout``)
    are left out.
    """
    known = defaults or {}
    options = {
        k: v
        for k, v in kwargs.items()
        if k != "timeout" and not (k in known and _is_default(v, known[k]))
    }
    if not options:
        try:
            if verb in {"open", "press"} and len(args) == 1:
                return str(to_action(f"{verb} {quote(str(args[0]))}"))
            if verb == "do" and len(args) == 1:
                act = args[0]
                return str(act if isinstance(act, Action) else to_action(act))
        except Exception:  # a bad argument: the method raises it; the line reads alike
            pass
    if verb == "do" and args:
        return str(args[0])
    parts = [verb, *(_word(a) for a in args)]
    parts += [f"{key}={_word(value)}" for key, value in options.items()]
    return " ".join(parts)


def _element_of(verb: str, args: tuple[Any, ...]) -> int | None:
    if verb == "do" and args:
        act = args[0]
        return act.element_id if isinstance(act, Action) else None
    first = args[0] if args else None
    return first if isinstance(first, int) and not isinstance(first, bool) else None


async def run_step(
    recorders: tuple[Recorder, ...],
    tab: Any,
    verb: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    call: Callable[[], Awaitable[R]],
    *,
    retarget: Callable[[], Any] | None = None,
    defaults: dict[str, Any] | None = None,
) -> R:
    """Run ``call`` as one step seen by ``recorders`` (or as part of the step under way).

    ``retarget`` gives the tab the step ended on (``tab N`` switches tabs).
    A step whose call is cancelled is not ended (cancellation propagates at once).
    """
    if _ACTIVE.get() is not None:
        return await call()
    step = Step(action_line(verb, args, kwargs, defaults), tab, _element_of(verb, args))
    step.note = _NOTE.get()
    if step.note is not None:
        _NOTE.set(None)
    token = _ACTIVE.set(step)
    try:
        for recorder in recorders:
            await recorder.begin(step)
    except BaseException:
        _ACTIVE.reset(token)
        raise
    step.started = time.time()
    clock = time.perf_counter()
    try:
        result = await call()
    except Exception as exc:
        step.duration = time.perf_counter() - clock
        _ACTIVE.reset(token)
        step.ok = False
        step.error = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
        await _end(recorders, step, retarget)
        raise
    except BaseException:
        _ACTIVE.reset(token)
        raise
    step.duration = time.perf_counter() - clock
    _ACTIVE.reset(token)
    if verb == "do" and getattr(result, "ok", True) is False:
        step.ok = False
        step.error = f"{getattr(result, 'error', '')}: {getattr(result, 'message', '')}"
    await _end(recorders, step, retarget)
    return result


async def _end(
    recorders: tuple[Recorder, ...], step: Step, retarget: Callable[[], Any] | None
) -> None:
    if retarget is not None:
        with contextlib.suppress(Exception):  # no tab left: it keeps the one it began on
            step.tab = retarget()
    for recorder in recorders:
        await recorder.end(step)


def recorded(
    verb: str,
) -> Callable[
    [Callable[Concatenate[Any, P], Awaitable[R]]],
    Callable[Concatenate[Any, P], Coroutine[Any, Any, R]],
]:
    """Make a tab method a recorded action named ``verb`` (see the module)."""

    def wrap(
        method: Callable[Concatenate[Any, P], Awaitable[R]],
    ) -> Callable[Concatenate[Any, P], Coroutine[Any, Any, R]]:
        defaults = {
            name: p.default
            for name, p in inspect.signature(method).parameters.items()
            if p.default is not inspect.Parameter.empty
        }

        @functools.wraps(method)
        async def recorded_method(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
            own = self._recorders
            shared = self._owner._recorders
            if not own and not shared:
                return await method(self, *args, **kwargs)
            return await run_step(
                own + shared,
                self,
                verb,
                args,
                kwargs,
                lambda: method(self, *args, **kwargs),
                defaults=defaults,
            )

        return recorded_method

    return wrap
