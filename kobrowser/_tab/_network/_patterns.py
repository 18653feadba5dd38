"""URL patterns of routes and waits: glob, regex or predicate, and what Chrome pauses.

A route's pattern decides two things:

* which requests its handler gets (:meth:`RequestMatcher.matches`, exact);
* which requests Chrome pauses at all (:meth:`RequestMatcher.fetch_patterns`,
  the ``Fetch.RequestPattern`` list given to ``Fetch.enable``). These are a
  superset of the matching requests, derived so that traffic no route wants
  is never paused: a glob becomes Chrome's wildcard pattern (``**`` and
  ``*`` both become ``*``, each ``{a,b}`` alternative its own pattern); a
  regex becomes its literal runs joined by ``*`` (``re.compile(r"\\.png$")``
  pauses ``*.png`` only); resource types become one pattern per type. A
  predicate, a case-insensitive regex, or a regex without literal text needs
  every request paused (``*``) and checked in Python.

Glob syntax (the whole URL must match, as in Playwright): ``**`` matches any
characters, ``*`` any characters but ``/``, ``{a,b}`` either alternative,
``\\`` escapes the next character; everything else (``?`` too) is literal.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeAlias

from kobrowser._exceptions import InvalidArgumentError
from kobrowser._validate._resources import RESOURCE_TYPES, check_resource_types

if TYPE_CHECKING:
    from kobrowser._tab._network._requests import Request

__all__ = [
    "RESOURCE_TYPES",
    "RequestMatcher",
    "RoutePattern",
    "URLMatcher",
    "check_resource_types",
    "glob_to_regex",
]

RoutePattern: TypeAlias = "str | re.Pattern[str] | Callable[[Request], bool]"

# What Chrome's Fetch domain calls them: it pauses fetch() requests as "XHR".
_FETCH_TYPES = {"fetch": "XHR"}
_XHR = frozenset({"xhr", "fetch"})
_MAX_ALTERNATIVES = 32
_WILDCARD_SPECIAL = frozenset("*?\\")


def _escape_wildcard(text: str) -> str:
    return "".join("\\" + char if char in _WILDCARD_SPECIAL else char for char in text)


def _split_glob(glob: str) -> list[tuple[str, str]]:
    """Tokens of a glob: ("lit", char), ("any", "**"), ("seg", "*"), ("alt", "a,b")."""
    tokens: list[tuple[str, str]] = []
    i = 0
    while i < len(glob):
        char = glob[i]
        if char == "\\":
            if i + 1 == len(glob):
                raise InvalidArgumentError(
                    f"glob {glob!r} ends with a lone backslash", argument="pattern"
                )
            tokens.append(("lit", glob[i + 1]))
            i += 2
        elif char == "*":
            if glob.startswith("**", i):
                tokens.append(("any", "**"))
                i += 2
            else:
                tokens.append(("seg", "*"))
                i += 1
        elif char == "{":
            end = glob.find("}", i)
            inner = glob[i + 1 : end]
            if end < 0 or "{" in inner:
                raise InvalidArgumentError(
                    f"glob {glob!r} has an unclosed or nested '{{'", argument="pattern"
                )
            tokens.append(("alt", inner))
            i = end + 1
        elif char == "}":
            raise InvalidArgumentError(f"glob {glob!r} has a stray '}}'", argument="pattern")
        else:
            tokens.append(("lit", char))
            i += 1
    return tokens


def glob_to_regex(glob: str) -> re.Pattern[str]:
    """The anchored regex equivalent of a URL glob (see the module docstring).

    Raises:
        InvalidArgumentError: unbalanced braces or a trailing backslash.
    """
    parts: list[str] = []
    for kind, text in _split_glob(glob):
        if kind == "lit":
            parts.append(re.escape(text))
        elif kind == "any":
            parts.append(".*")
        elif kind == "seg":
            parts.append("[^/]*")
        else:
            parts.append("(?:" + "|".join(re.escape(alt) for alt in text.split(",")) + ")")
    return re.compile("".join(parts), re.DOTALL)


def _glob_wildcards(glob: str) -> list[str]:
    """Chrome wildcard patterns (``*``, ``?``, ``\\``) matching at least the glob's URLs."""
    patterns = [""]
    wild = False
    for kind, text in _split_glob(glob):
        if kind in ("any", "seg"):
            if not wild:
                patterns = [p + "*" for p in patterns]
            wild = True
            continue
        wild = False
        if kind == "lit":
            patterns = [p + _escape_wildcard(text) for p in patterns]
        else:
            alts = text.split(",")
            if len(patterns) * len(alts) > _MAX_ALTERNATIVES:
                patterns = [p + "*" for p in patterns]
            else:
                patterns = [p + _escape_wildcard(alt) for p in patterns for alt in alts]
    return sorted(set(patterns))


def _regex_wildcard(regex: re.Pattern[str]) -> str | None:
    """A Chrome wildcard pattern covering every URL ``regex.search`` accepts, or None.

    The pattern is the top-level literal runs of the regex in order, joined
    and surrounded by ``*`` (no ``*`` next to a ``^``/``$`` anchor). None when
    nothing literal is certain (case-insensitive, no literal, unparsable).
    """
    if regex.flags & re.IGNORECASE:
        return None
    try:
        from re import _parser  # type: ignore[attr-defined]

        consts: Any = _parser
        items: list[tuple[Any, Any]] = list(consts.parse(regex.pattern, regex.flags))
    except Exception:  # pragma: no cover - a private module changed
        return None
    literal, at = consts.LITERAL, consts.AT
    starts = (consts.AT_BEGINNING, consts.AT_BEGINNING_STRING)
    ends = (consts.AT_END, consts.AT_END_STRING)
    anchored_start = bool(items) and items[0][0] is at and items[0][1] in starts
    anchored_end = bool(items) and items[-1][0] is at and items[-1][1] in ends
    runs: list[str] = []
    current: list[str] = []
    for op, arg in items:
        if op is literal:
            current.append(chr(arg))
        elif current:
            runs.append("".join(current))
            current = []
    if current:
        runs.append("".join(current))
    if not runs:
        return None
    pattern = "*".join(_escape_wildcard(run) for run in runs)
    if not (anchored_start and len(items) > 1 and items[1][0] is literal):
        pattern = "*" + pattern
    if not (anchored_end and len(items) > 1 and items[-2][0] is literal):
        pattern += "*"
    return pattern


class URLMatcher:
    """A URL pattern checked: glob, compiled regex or predicate on a value.

    Args:
        pattern: a glob string, a compiled regex (``search`` semantics, as in
            Playwright) or a callable taking the value and returning a bool.
        what: the argument's name, for error messages.

    Raises:
        InvalidArgumentError: an empty or malformed glob, or another type.
    """

    def __init__(self, pattern: Any, what: str = "pattern") -> None:
        self.pattern = pattern
        self._regex: re.Pattern[str] | None = None
        self._predicate: Callable[[Any], bool] | None = None
        if isinstance(pattern, str):
            if not pattern:
                raise InvalidArgumentError(f"{what} must not be empty", argument=what)
            self._regex = glob_to_regex(pattern)
            self._full = True
        elif isinstance(pattern, re.Pattern):
            if not isinstance(pattern.pattern, str):
                raise InvalidArgumentError(f"{what} regex must be of str, not bytes", argument=what)
            self._regex = pattern
            self._full = False
        elif callable(pattern):
            self._predicate = pattern
            self._full = False
        else:
            raise InvalidArgumentError(
                f"{what} must be a glob string, a compiled regex or a callable, "
                f"not {type(pattern).__name__}",
                argument=what,
            )

    @property
    def is_predicate(self) -> bool:
        """True for a callable (it runs user code, so never on the reader)."""
        return self._predicate is not None

    def matches_url(self, url: str) -> bool:
        """Whether ``url`` matches (globs and regexes only)."""
        regex = self._regex
        assert regex is not None
        if self._full:
            return regex.fullmatch(url) is not None
        return regex.search(url) is not None

    def matches(self, url: str, value: Any) -> bool:
        """Whether the request or response ``value`` with ``url`` matches."""
        if self._predicate is not None:
            return bool(self._predicate(value))
        return self.matches_url(url)

    def wildcards(self) -> list[str] | None:
        """Chrome wildcard patterns that cover the matches, or None (pause everything)."""
        if isinstance(self.pattern, str):
            return _glob_wildcards(self.pattern)
        if self._regex is not None:
            wildcard = _regex_wildcard(self._regex)
            return None if wildcard is None else [wildcard]
        return None


class RequestMatcher:
    """Which requests a route applies to: a URL pattern and/or resource types.

    A request matches when its URL matches ``pattern`` (if given) and its
    resource type is one of ``types`` (if given).
    """

    def __init__(self, pattern: Any = None, types: Iterable[str] | None = None) -> None:
        self.url = None if pattern is None else URLMatcher(pattern)
        self.types = None if types is None else check_resource_types(types)
        if self.url is None and not self.types:
            raise InvalidArgumentError("give a URL pattern or resource types", argument="pattern")

    @property
    def pattern(self) -> Any:
        """The URL pattern given (None for types only)."""
        return None if self.url is None else self.url.pattern

    def matches(self, request: Request) -> bool:
        """Whether ``request`` matches (may run a user predicate)."""
        if self.types is not None:
            kind = request.resource_type
            # Chrome pauses fetch() requests as "XHR": the two are one type here.
            if kind not in self.types and not (kind in _XHR and self.types & _XHR):
                return False
        return self.url is None or self.url.matches(request.url, request)

    def fetch_patterns(self) -> list[dict[str, str]]:
        """The ``Fetch.RequestPattern`` list that pauses (at least) the matches."""
        wildcards = ["*"] if self.url is None else (self.url.wildcards() or ["*"])
        stages = [{"urlPattern": w, "requestStage": "Request"} for w in wildcards]
        if self.types is None:
            return stages
        kinds = sorted({_FETCH_TYPES.get(name, RESOURCE_TYPES[name]) for name in self.types})
        return [{**stage, "resourceType": kind} for stage in stages for kind in kinds]
