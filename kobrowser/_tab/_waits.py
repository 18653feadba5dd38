"""Waits of a tab, driven by CDP events or in-page observers, each with a deadline.

* Load states and URLs re-check when the tab's :class:`PageState` reports a
  change (a navigation, lifecycle or network event); ``networkidle`` also
  sleeps out the remaining quiet period, restarted by any request.
* Text, selectors and functions are awaited inside the page: one
  ``Runtime.evaluate`` with ``awaitPromise`` whose promise re-checks on DOM
  mutations (and animation frames for functions) and settles itself at the
  deadline, so nothing is left running in the page. When the document is
  replaced meanwhile the wait starts again in the new one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio

from kobrowser._exceptions import (
    InvalidSelectorError,
    ProtocolError,
    TargetClosedError,
    WaitTimeoutError,
)
from kobrowser._tab._pagestate import NETWORK_IDLE_S, LoadState, PageState
from kobrowser._tab._runtime import error_from_stack, javascript_error

if TYPE_CHECKING:
    from kobrowser._deadline import Deadline
    from kobrowser.cdp import CDPSession

__all__ = ["SelectorState", "URLPattern", "Waiter", "glob_to_regex"]

URLPattern = str | re.Pattern[str] | Callable[[str], bool]
SelectorState = str  # "attached" | "detached" | "visible" | "hidden"
_JS_SLACK_S = 1.0  # the in-page timer outlives our deadline by this much

# Each in-page wait resolves {ok: true, value} or {ok: false} (its own timer),
# or {error} / {invalid}; it never rejects, so the page is left clean.
_OBSERVE = """
(check, ms, everyFrame) => new Promise((resolve) => {
  let done = false, obs = null, timer = 0;
  const finish = (r) => {
    if (done) return;
    done = true;
    if (obs) obs.disconnect();
    clearTimeout(timer);
    document.removeEventListener('transitionend', run, true);
    document.removeEventListener('animationend', run, true);
    resolve(r);
  };
  function run() {
    if (done) return;
    try {
      const r = check();
      if (r && r.invalid) finish(r);
      else if (r && r.ok) finish(r);
    } catch (e) { finish({error: String(e && e.stack || e)}); }
  }
  timer = setTimeout(() => finish({ok: false}), ms);
  obs = new MutationObserver(run);
  obs.observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
  document.addEventListener('transitionend', run, true);
  document.addEventListener('animationend', run, true);
  if (everyFrame) {
    const tick = () => { if (!done) { run(); requestAnimationFrame(tick); } };
    requestAnimationFrame(tick);
  }
  run();
})
"""

_TEXT_CHECK = """() => {
  const root = document.body || document.documentElement;
  const text = root ? (root.innerText ?? root.textContent ?? '') : '';
  return {ok: text.includes(%s)};
}"""

_SELECTOR_CHECK = """() => {
  let el;
  try { el = document.querySelector(%s); } catch (e) { return {invalid: String(e.message)}; }
  const state = %s;
  if (state === 'attached') return {ok: !!el};
  if (state === 'detached') return {ok: !el};
  let visible = false;
  if (el && el.isConnected) {
    const r = el.getBoundingClientRect();
    visible = r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
  }
  return {ok: state === 'visible' ? visible : !visible};
}"""

_FUNCTION_CHECK = """() => {
  let v = (%s);
  if (typeof v === 'function') v = v();
  return v ? {ok: true, value: v} : {ok: false};
}"""

_CONTEXT_GONE = ("Execution context was destroyed", "Cannot find context", "Inspected target")


def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """Compile a URL glob: ``**`` any text, ``*`` any text without ``/``, ``{a,b}`` either.

    Everything else is literal (``?`` too), and the whole URL must match::

        glob_to_regex("**/checkout*").fullmatch("https://shop.test/checkout?step=2")
    """
    out: list[str] = []
    i = 0
    in_group = False
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                out.append(".*")
                i += 2
                continue
            out.append("[^/]*")
        elif c == "{" and not in_group:
            out.append("(?:")
            in_group = True
        elif c == "}" and in_group:
            out.append(")")
            in_group = False
        elif c == "," and in_group:
            out.append("|")
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out))


def _url_matcher(pattern: URLPattern) -> Callable[[str], bool]:
    if isinstance(pattern, str):
        regex = glob_to_regex(pattern)
        return lambda url: regex.fullmatch(url) is not None
    if isinstance(pattern, re.Pattern):
        return lambda url: pattern.search(url) is not None
    return pattern


class Waiter:
    """The waits of one tab, over its page session and :class:`PageState`.

    Every wait takes the :class:`~kobrowser._deadline.Deadline` of the public
    call and raises :class:`~kobrowser.WaitTimeoutError` when it passes.
    """

    def __init__(self, page: CDPSession, state: PageState) -> None:
        self._page = page
        self._state = state

    # -- building blocks -----------------------------------------------------

    async def changed(self) -> None:
        """Wait for the next page event (raise when the tab is gone)."""
        state = self._state
        if state.gone is not None:
            raise TargetClosedError(state.gone)
        await state.changed.wait()
        if state.gone is not None:
            raise TargetClosedError(state.gone)

    async def until_document(self, loader_id: str, wanted_state: str) -> str:
        """Wait until document ``loader_id`` (or one that replaced it) reaches ``wanted_state``.

        Returns the loader id of the document that reached it. No deadline of
        its own: run it inside the caller's.
        """
        state = self._state
        wanted = "load" if wanted_state == "networkidle" else wanted_state
        while True:
            latest = state.latest_document()
            if latest and latest != loader_id and state.reached(loader_id, "commit"):
                loader_id = latest  # replaced (e.g. a script redirect): follow it
            if state.reached(loader_id, wanted):
                break
            await self.changed()
        if wanted_state == "networkidle":
            await self._until_network_idle()
        return loader_id

    async def _until_network_idle(self) -> None:
        state = self._state
        while True:
            if state.inflight:
                await self.changed()
                continue
            remaining = NETWORK_IDLE_S - state.idle_for()
            if remaining <= 0:
                return
            with anyio.move_on_after(remaining):
                await self.changed()

    async def _in_page(self, check: str, deadline: Deadline, what: str, every_frame: bool) -> Any:
        """Run an ``_OBSERVE`` wait with ``check`` until it holds; return its value."""
        with deadline.scope() as scope:
            while True:
                ms = int((deadline.remaining() + _JS_SLACK_S) * 1000)
                expression = f"({_OBSERVE})(({check}), {ms}, {json.dumps(every_frame)})"
                document = (self._state.loader_id, self._state.navigations)
                try:
                    result = await self._page.send(
                        "Runtime.evaluate",
                        {"expression": expression, "returnByValue": True, "awaitPromise": True},
                        timeout=deadline.remaining() + 5,
                    )
                except ProtocolError as exc:
                    if not any(text in exc.message for text in _CONTEXT_GONE):
                        raise
                    # The document is being replaced: retry in the new one (at
                    # once if it committed before this answer came).
                    if document == (self._state.loader_id, self._state.navigations):
                        await self.changed()
                    continue
                details = result.get("exceptionDetails")
                if details:
                    raise javascript_error(details, f"JavaScript error while waiting for {what}")
                value = result.get("result", {}).get("value")
                if not isinstance(value, dict):
                    await self.changed()  # no document to observe yet
                    continue
                if "invalid" in value:
                    raise InvalidSelectorError(f"{what}: invalid CSS selector: {value['invalid']}")
                if "error" in value:
                    context = f"JavaScript error while waiting for {what}"
                    raise error_from_stack(str(value["error"]), context)
                if value.get("ok"):
                    return value.get("value")
                await self.changed()
        assert scope.cancelled_caught
        raise WaitTimeoutError(f"timed out after {deadline.timeout:g} s waiting for {what}")

    # -- the waits of Tab ------------------------------------------------------

    async def load(self, wanted: LoadState, deadline: Deadline) -> None:
        """See ``Tab.wait_for_load``."""
        state = self._state
        with deadline.scope():
            while state.navigating:  # started, not committed yet: await the new document
                await self.changed()
            await self.until_document(state.latest_document(), wanted)
            return
        raise deadline.error(f"the page did not reach {wanted!r}")

    async def url(self, url: URLPattern, wait_until: LoadState, deadline: Deadline) -> None:
        """See ``Tab.wait_for_url``."""
        matches = _url_matcher(url)
        state = self._state
        with deadline.scope():
            while not matches(state.url):
                await self.changed()
            await self.until_document(state.latest_document(), wait_until)
            return
        raise WaitTimeoutError(
            f"the URL did not match {url!r} (and reach {wait_until!r})"
            f" within {deadline.timeout:g} s;"
            f" it is {state.url!r}"
        )

    async def text(self, text: str, deadline: Deadline) -> None:
        """See ``Tab.wait_for_text``."""
        script = _TEXT_CHECK % json.dumps(text)
        await self._in_page(script, deadline, f"text {text!r}", every_frame=False)

    async def selector(self, selector: str, state: SelectorState, deadline: Deadline) -> None:
        """See ``Tab.wait_for_selector``."""
        script = _SELECTOR_CHECK % (json.dumps(selector), json.dumps(state))
        what = f"selector {selector!r} to be {state}"
        await self._in_page(script, deadline, what, every_frame=False)

    async def function(self, expression: str, deadline: Deadline) -> Any:
        """See ``Tab.wait_for_function``."""
        script = _FUNCTION_CHECK % expression
        return await self._in_page(script, deadline, f"function {expression!r}", every_frame=True)
