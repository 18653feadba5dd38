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
from typing import Any

import anyio

from ._exceptions import (
    InvalidSelectorError,
    KoBrowserError,
    ProtocolError,
    TargetClosedError,
    WaitTimeoutError,
)
from ._pagestate import NETWORK_IDLE_S, LoadState, PageStateMixin
from ._validate import check, seconds

__all__ = ["URLPattern", "WaitsMixin", "glob_to_regex"]

URLPattern = str | re.Pattern[str] | Callable[[str], bool]
SelectorState = str  # "attached" | "detached" | "visible" | "hidden"
_SELECTOR_STATES = ("attached", "detached", "visible", "hidden")
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


def _check_state(state: str, argument: str = "wait_until") -> None:
    check(**{argument: state})


class WaitsMixin(PageStateMixin):
    """Event-driven waits: load states, URL, text, selector, JS function, time."""

    # -- building blocks -----------------------------------------------------

    async def _changed(self) -> None:
        """Wait for the next page event (raise when the tab is gone)."""
        page = self._page
        if page.gone is not None:
            raise TargetClosedError(page.gone)
        await page.changed.wait()
        if page.gone is not None:
            raise TargetClosedError(page.gone)

    async def _until_document(self, loader_id: str, state: str) -> str:
        """Wait until document ``loader_id`` (or one that replaced it) reaches ``state``.

        Returns the loader id of the document that reached it. No deadline of
        its own: run it inside the caller's.
        """
        page = self._page
        wanted = "load" if state == "networkidle" else state
        while True:
            latest = page.latest_document()
            if latest and latest != loader_id and page.reached(loader_id, "commit"):
                loader_id = latest  # replaced (e.g. a script redirect): follow it
            if page.reached(loader_id, wanted):
                break
            await self._changed()
        if state == "networkidle":
            await self._until_network_idle()
        return loader_id

    async def _until_network_idle(self) -> None:
        page = self._page
        while True:
            if page.inflight:
                await self._changed()
                continue
            remaining = NETWORK_IDLE_S - page.idle_for()
            if remaining <= 0:
                return
            with anyio.move_on_after(remaining):
                await self._changed()

    async def _in_page(self, check: str, deadline: float, what: str, every_frame: bool) -> Any:
        """Run an ``_OBSERVE`` wait with ``check`` until it holds; return its value."""
        with anyio.move_on_after(deadline) as scope:
            end = anyio.current_time() + deadline
            while True:
                ms = max(0, int((end - anyio.current_time() + _JS_SLACK_S) * 1000))
                expression = f"({_OBSERVE})(({check}), {ms}, {json.dumps(every_frame)})"
                try:
                    result = await self.cdp.send(
                        "Runtime.evaluate",
                        {"expression": expression, "returnByValue": True, "awaitPromise": True},
                        timeout=deadline + 5,
                    )
                except ProtocolError as exc:
                    if not any(text in exc.message for text in _CONTEXT_GONE):
                        raise
                    await self._changed()  # the document is being replaced: retry in the new one
                    continue
                details = result.get("exceptionDetails")
                if details:
                    text = details.get("exception", {}).get("description") or details.get("text")
                    raise KoBrowserError(f"JavaScript error while waiting for {what}: {text}")
                value = result.get("result", {}).get("value")
                if not isinstance(value, dict):
                    await self._changed()  # no document to observe yet
                    continue
                if "invalid" in value:
                    raise InvalidSelectorError(f"invalid CSS selector: {value['invalid']}")
                if "error" in value:
                    error = value["error"]
                    raise KoBrowserError(f"JavaScript error while waiting for {what}: {error}")
                if value.get("ok"):
                    return value.get("value")
                await self._changed()
        assert scope.cancelled_caught
        raise WaitTimeoutError(f"timed out after {deadline:g} s waiting for {what}")

    def _deadline(self, timeout: float | None) -> float:
        return self.timeout if timeout is None else seconds(timeout)

    # -- public waits ---------------------------------------------------------

    async def wait_for_load(
        self, state: LoadState = "load", *, timeout: float | None = None
    ) -> None:
        """Wait until the current top document reached ``state``.

        ``commit`` < ``domcontentloaded`` < ``load`` < ``networkidle`` (load,
        then no request in flight for 500 ms across the page and all its
        frames). Returns at once when the state was already reached. When a
        navigation has started but not yet committed, or the document is
        replaced meanwhile, the new document is awaited.

        Raises:
            WaitTimeoutError: not reached within ``timeout`` (default: the browser's).
            TargetClosedError: the tab closed.

        Cancelling the caller simply stops waiting.
        """
        _check_state(state, "state")
        deadline = self._deadline(timeout)
        page = self._page
        with anyio.move_on_after(deadline):
            while page.navigating:  # started, not committed yet: await the new document
                await self._changed()
            await self._until_document(page.latest_document(), state)
            return
        raise WaitTimeoutError(f"the page did not reach {state!r} within {deadline:g} s")

    async def wait_for_url(
        self,
        url: URLPattern,
        *,
        wait_until: LoadState = "load",
        timeout: float | None = None,
    ) -> None:
        """Wait until the top document's URL matches, then until it reaches ``wait_until``.

        Args:
            url: a glob (``"**/checkout*"``: ``**`` any text, ``*`` any text
                but ``/``; the whole URL must match), a compiled regex
                (searched), or a function of the URL returning bool.
            wait_until: the load state to wait for after the URL matched.
            timeout: seconds (default: the browser's), for both parts.

        Raises:
            WaitTimeoutError: no match, or the state not reached, in time.
            TargetClosedError: the tab closed.

        Cancelling the caller simply stops waiting.
        """
        check(url_pattern=url, wait_until=wait_until, timeout=timeout)
        matches = _url_matcher(url)
        deadline = self._deadline(timeout)
        page = self._page
        with anyio.move_on_after(deadline):
            while not matches(page.url):
                await self._changed()
            await self._until_document(page.latest_document(), wait_until)
            return
        raise WaitTimeoutError(
            f"the URL did not match {url!r} (and reach {wait_until!r}) within {deadline:g} s;"
            f" it is {page.url!r}"
        )

    async def wait_for_text(self, text: str, *, timeout: float | None = None) -> None:
        """Wait until the top document's rendered text (``innerText``) contains ``text``.

        Re-checked in the page on every DOM mutation.

        Raises:
            WaitTimeoutError: not there within ``timeout`` (default: the browser's).

        Cancelling the caller stops waiting; the in-page observer removes
        itself at the deadline.
        """
        check(text=text, timeout=timeout)
        script = _TEXT_CHECK % json.dumps(text)
        await self._in_page(script, self._deadline(timeout), f"text {text!r}", every_frame=False)

    async def wait_for_selector(
        self, selector: str, *, state: SelectorState = "visible", timeout: float | None = None
    ) -> None:
        """Wait until the first element matching a CSS selector is in ``state``.

        ``attached``: in the DOM; ``detached``: not in the DOM; ``visible``:
        in the DOM with a non-empty box and not ``visibility: hidden``;
        ``hidden``: not visible or not in the DOM. Re-checked in the page on
        every DOM mutation and CSS transition/animation end.

        Raises:
            InvalidArgumentError: unknown ``state``, empty ``selector``.
            InvalidSelectorError: ``selector`` is not valid CSS.
            WaitTimeoutError: not in that state within ``timeout`` (default: the browser's).

        Cancelling the caller stops waiting; the in-page observer removes
        itself at the deadline.
        """
        check(selector=selector, selector_state=state, timeout=timeout)
        script = _SELECTOR_CHECK % (json.dumps(selector), json.dumps(state))
        what = f"selector {selector!r} to be {state}"
        await self._in_page(script, self._deadline(timeout), what, every_frame=False)

    async def wait_for_function(self, expression: str, *, timeout: float | None = None) -> Any:
        """Wait until a JavaScript expression (or function) is truthy; return its value.

        ``expression`` is re-evaluated in the page on every DOM mutation and
        animation frame; when it evaluates to a function, that function is
        called instead. The value must be JSON-serializable.

        Raises:
            KoBrowserError: the expression throws.
            WaitTimeoutError: not truthy within ``timeout`` (default: the browser's).

        Cancelling the caller stops waiting; the in-page loop ends itself at
        the deadline.
        """
        check(expression=expression, timeout=timeout)
        script = _FUNCTION_CHECK % expression
        return await self._in_page(
            script, self._deadline(timeout), f"function {expression!r}", every_frame=True
        )

    async def wait(self, ms: float) -> None:
        """Sleep ``ms`` milliseconds (prefer the waits above: they react to the page)."""
        check(ms=ms)
        await anyio.sleep(ms / 1000)
