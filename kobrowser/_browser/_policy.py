"""Policy: which URLs a context may load, and what the model-facing faces may do.

A :class:`Policy` is given to a context (:meth:`BrowserContext.set_policy`,
``Browser.new_context(policy=...)``). The context then refuses a refused URL
before :meth:`Tab.open` navigates (the page stays where it was), and aborts
every document request to one (redirect hops, popups and frame navigations
included) through a route that runs before any route of the user.

Patterns are globs (``*`` matches any run of characters). A pattern with
``://`` and no path matches the origin (``http://localhost:*``); with a path
it matches the whole URL; without ``://`` it matches the host, or
``host:port`` when it has a ``:`` (``*.example.com``, ``127.0.0.1:8080``).
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from kobrowser._exceptions import InvalidArgumentError

__all__ = ["REFUSED_SCHEMES", "Policy"]

#: Schemes a policy refuses (``file`` only outside ``allow_file_access``).
REFUSED_SCHEMES = frozenset(
    {
        "file",
        "chrome",
        "chrome-untrusted",
        "chrome-extension",
        "devtools",
        "view-source",
        "filesystem",
        "javascript",
    }
)
_REFERENCE = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}")
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def _patterns(value: Iterable[str] | str, name: str) -> tuple[str, ...]:
    items = (value,) if isinstance(value, str) else tuple(value)
    for item in items:
        if not isinstance(item, str) or not item.strip():
            raise InvalidArgumentError(
                f"{name} takes non-empty pattern strings, not {item!r}", argument=name
            )
    return tuple(item.strip().lower() for item in items)


def _matches(pattern: str, url: str, scheme: str, host: str, port: int | None) -> bool:
    if "://" in pattern:
        rest = pattern.split("://", 1)[1]
        if "/" in rest:
            return fnmatch.fnmatchcase(url.lower(), pattern)
        shown = f"{scheme}://{host}" + (f":{port}" if port is not None else "")
        bare = f"{scheme}://{host}"
        return fnmatch.fnmatchcase(shown, pattern) or (
            port == _DEFAULT_PORTS.get(scheme) and fnmatch.fnmatchcase(bare, pattern)
        )
    if ":" in pattern:
        return port is not None and fnmatch.fnmatchcase(f"{host}:{port}", pattern)
    return fnmatch.fnmatchcase(host, pattern)


@dataclass(frozen=True)
class Policy:
    """What a context may load and what a model driving it may do.

    ``Policy()`` is the safe default of ``ko-browser mcp`` and the agent:
    any http(s) origin, no ``file://``, ``chrome://``, ``devtools://`` or
    ``view-source:``, no ``evaluate``, no uploads.

    Attributes:
        allow_origins: if not empty, only http(s)/ws(s) URLs matching one of
            these patterns load.
        block_origins: URLs matching one of these never load (wins over
            ``allow_origins``).
        allow_file_access: a directory whose files ``file://`` URLs may show
            (symlinks resolved); None refuses every ``file://`` URL.
        allow_evaluate: the faces offer ``evaluate`` (JavaScript in the page).
        upload_dir: the directory uploads may take files from; None: no uploads.
        download_dir: where downloads go; None: the browser's default.
        secrets: values a model refers to by name (``{{name}}``) and never sees.

    Raises:
        InvalidArgumentError: an empty pattern or a secret that is not a
            non-empty string (on construction).
    """

    allow_origins: tuple[str, ...] = ()
    block_origins: tuple[str, ...] = ()
    allow_file_access: Path | None = None
    allow_evaluate: bool = False
    upload_dir: Path | None = None
    download_dir: Path | None = None
    secrets: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "allow_origins", _patterns(self.allow_origins, "allow_origins"))
        set_(self, "block_origins", _patterns(self.block_origins, "block_origins"))
        for name in ("allow_file_access", "upload_dir", "download_dir"):
            value = getattr(self, name)
            if value is not None:
                set_(self, name, Path(os.path.realpath(os.fspath(value))))
        secrets = dict(self.secrets)
        for key, value in secrets.items():
            if not isinstance(key, str) or not key.isidentifier():
                raise InvalidArgumentError(
                    f"secret names are identifiers, not {key!r}", argument="secrets"
                )
            if not isinstance(value, str) or not value:
                raise InvalidArgumentError(
                    f"secret {key!r} must be a non-empty string", argument="secrets"
                )
        set_(self, "secrets", secrets)

    def __repr__(self) -> str:  # never the secrets' values
        return (
            f"Policy(allow_origins={self.allow_origins!r}, block_origins={self.block_origins!r}, "
            f"allow_file_access={self.allow_file_access!r}, "
            f"allow_evaluate={self.allow_evaluate!r}, upload_dir={self.upload_dir!r}, "
            f"download_dir={self.download_dir!r}, secrets={sorted(self.secrets)!r})"
        )

    def fill_text(self, text: str) -> str:
        """``text`` with each ``{{name}}`` of a known secret replaced by its value."""
        secrets = self.secrets
        if not secrets or "{{" not in text:
            return text
        return _REFERENCE.sub(lambda m: secrets.get(m.group(1), m.group(0)), text)

    def mask(self, text: str) -> str:
        """``text`` with every secret value replaced by ``{{name}}`` (longest values first)."""
        for name, value in sorted(self.secrets.items(), key=lambda kv: -len(kv[1])):
            if value in text:
                text = text.replace(value, "{{" + name + "}}")
        return text

    def refusal(self, url: str) -> str | None:
        """Why the policy refuses to load ``url`` (naming the rule), or None."""
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            return f"refused by policy: {url!r} is not a valid URL"
        scheme = parts.scheme.lower()
        if scheme == "blob":  # blob:https://host/uuid belongs to the origin inside it
            return self.refusal(url[len("blob:") :])
        if scheme == "file":
            return self._file_refusal(unquote(parts.path))
        if scheme in REFUSED_SCHEMES:
            return f"refused by policy: {scheme}: URLs are never loaded"
        if scheme not in _DEFAULT_PORTS:
            return None  # about: and data: carry no origin of their own
        host = (parts.hostname or "").lower()
        if port is None:
            port = _DEFAULT_PORTS[scheme]
        for pattern in self.block_origins:
            if _matches(pattern, url, scheme, host, port):
                return f"refused by policy: block_origins {pattern!r} matches {url!r}"
        if self.allow_origins and not any(
            _matches(p, url, scheme, host, port) for p in self.allow_origins
        ):
            return f"refused by policy: {url!r} matches no pattern of allow_origins"
        return None

    def _file_refusal(self, path: str) -> str | None:
        root = self.allow_file_access
        if root is None:
            return "refused by policy: file: URLs are off (allow_file_access is None)"
        real = Path(os.path.realpath(path))
        if real != root and root not in real.parents:
            return f"refused by policy: {path} is outside allow_file_access ({root})"
        return None
