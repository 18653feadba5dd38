"""Proxies: what :func:`~kobrowser.launch` and :meth:`~kobrowser.Browser.new_context` take.

A proxy is given as a URL (``"http://user:pass@host:3128"``,
``"socks5://host:1080"``), a :class:`Proxy`, or a dict with the same keys.
Chrome gets the server without the credentials (``--proxy-server`` for a
launched browser, ``proxyServer`` of ``Target.createBrowserContext`` for a
context); the credentials are answered on the proxy's challenge by the tabs
(see :mod:`kobrowser._tab._network._auth`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

import msgspec

from kobrowser._exceptions import InvalidArgumentError
from kobrowser._validate._proxy import proxy_bypass, split_proxy_url

__all__ = ["Proxy", "ProxySetting", "context_proxy_params", "launch_proxy_args", "to_proxy"]

_KEYS = ("server", "username", "password", "bypass")


class Proxy(msgspec.Struct, frozen=True, kw_only=True):
    """A proxy server, its credentials and the hosts that go around it.

    ``kobrowser.launch(proxy=Proxy(server="http://proxy:3128", username="u",
    password="p", bypass=["*.internal"]))``; a URL string or a dict with the
    same keys is taken too.

    Attributes:
        server: ``scheme://host[:port]``: ``http``, ``https``, ``socks4`` or
            ``socks5`` (a URL with ``user:password@`` sets the credentials).
        username: the user to answer the proxy's challenge with (None: none).
        password: its password.
        bypass: hosts or patterns reached directly, as Chrome's
            ``--proxy-bypass-list`` takes them (``example.com``,
            ``*.example.com``, ``10.0.0.0/8``, ``<local>``). Chrome never
            sends loopback addresses through a proxy unless the list holds
            ``<-loopback>``.
    """

    server: str
    username: str | None = None
    password: str | None = None
    bypass: tuple[str, ...] = ()

    def __repr__(self) -> str:
        user = "" if self.username is None else f", username={self.username!r}, password='***'"
        bypass = f", bypass={self.bypass!r}" if self.bypass else ""
        return f"Proxy(server={self.server!r}{user}{bypass})"

    @property
    def credentials(self) -> tuple[str, str] | None:
        """``(username, password)`` when the proxy is logged in to, else None."""
        if self.username is None:
            return None
        return (self.username, self.password or "")


ProxySetting: TypeAlias = "str | Proxy | Mapping[str, Any]"


def to_proxy(value: Any, argument: str = "proxy") -> Proxy | None:
    """Check a proxy given as a URL, a :class:`Proxy` or a dict; None stays None.

    Raises:
        InvalidArgumentError: a bad URL or bypass entry, an unknown key,
            credentials both in the URL and apart, a password without a
            user, or credentials for a SOCKS proxy (the message names
            ``argument`` and never shows the password).
    """
    if value is None:
        return None
    if isinstance(value, str):
        url = split_proxy_url(value, argument)
        return Proxy(server=url.server, username=url.username, password=url.password)
    if isinstance(value, Proxy):
        fields: dict[str, Any] = {key: getattr(value, key) for key in _KEYS}
    elif isinstance(value, Mapping):
        unknown = sorted(str(key) for key in value if key not in _KEYS)
        if unknown:
            raise InvalidArgumentError(
                f"{argument}: unknown key {unknown[0]!r}; a proxy has {', '.join(_KEYS)}",
                argument=argument,
            )
        if "server" not in value:
            raise InvalidArgumentError(f"{argument}: a proxy needs a 'server'", argument=argument)
        fields = dict(value)
    else:
        raise InvalidArgumentError(
            f"{argument}: got {type(value).__name__}; expected a proxy URL, a kobrowser.Proxy "
            "or a dict with 'server' (and 'username', 'password', 'bypass')",
            argument=argument,
        )
    url = split_proxy_url(fields["server"], argument)
    username, password = fields.get("username"), fields.get("password")
    for name, text in (("username", username), ("password", password)):
        if text is not None and not isinstance(text, str):
            raise InvalidArgumentError(
                f"{argument}: {name} must be a str, not {type(text).__name__}", argument=argument
            )
    if username is not None or password is not None:
        if url.username is not None:
            raise InvalidArgumentError(
                f"{argument}: give the credentials in the server URL or as username and "
                "password, not both",
                argument=argument,
            )
        if not username:
            raise InvalidArgumentError(
                f"{argument}: a password needs a (non-empty) username", argument=argument
            )
        if url.server.startswith("socks"):
            raise InvalidArgumentError(
                f"{argument}: Chrome cannot log in to a SOCKS proxy: give no username",
                argument=argument,
            )
    else:
        username, password = url.username, url.password
    bypass = proxy_bypass(fields.get("bypass"), f"{argument}.bypass")
    return Proxy(server=url.server, username=username, password=password, bypass=bypass)


def launch_proxy_args(proxy: Proxy | None) -> list[str]:
    """The Chrome flags that send a launched browser's traffic through ``proxy``."""
    if proxy is None:
        return []
    args = [f"--proxy-server={proxy.server}"]
    if proxy.bypass:
        args.append(f"--proxy-bypass-list={';'.join(proxy.bypass)}")
    return args


def context_proxy_params(proxy: Proxy | None) -> dict[str, str]:
    """The ``Target.createBrowserContext`` parameters of a context's ``proxy``."""
    if proxy is None:
        return {}
    params = {"proxyServer": proxy.server}
    if proxy.bypass:
        params["proxyBypassList"] = ";".join(proxy.bypass)
    return params
