"""``launch()`` and ``connect()``: the two ways to get a :class:`Browser`."""

from __future__ import annotations

import os
from collections.abc import Sequence

from kobrowser._browser._browser import Browser
from kobrowser._browser._proxy import ProxySetting, launch_proxy_args, to_proxy
from kobrowser._tab._stableids import IdMode
from kobrowser._validate import connect_options, launch_options
from kobrowser.cdp import ChromeProcess, find_chrome

__all__ = ["connect", "launch"]


def launch(
    *,
    headless: bool = True,
    executable_path: str | os.PathLike[str] | None = None,
    args: Sequence[str] = (),
    timeout: float = 30.0,
    no_sandbox: bool | None = None,
    download_dir: str | os.PathLike[str] | None = None,
    transport: str | None = None,
    proxy: ProxySetting | None = None,
    ids: IdMode = "depth-first",
) -> Browser:
    """Start a local Chrome/Chromium with a fresh temporary profile.

    Use the result as an async context manager::

        async with kobrowser.launch() as browser:
            tab = await browser.new_tab("https://example.com")

    Args:
        headless: run without a window.
        executable_path: the browser to run; default: found as described in docs/chrome.md.
        args: extra command-line flags.
        timeout: seconds to wait for Chrome to start, and the default
            deadline of every CDP call and wait.
        no_sandbox: pass ``--no-sandbox``; default: only when running as root.
        download_dir: where downloads are saved (created if missing);
            default: a temporary directory removed when the browser closes.
        transport: ``"pipe"`` (default: CBOR over Chrome's DevTools pipe when
            the native codec is built, else JSON), ``"pipe-cbor"``,
            ``"pipe-json"`` or ``"websocket"``; default: the
            ``KOBROWSER_TRANSPORT`` environment variable, else ``"pipe"``.
        proxy: send the browser's traffic through this proxy: a URL
            (``"http://user:pass@host:3128"``, ``"https://..."``,
            ``"socks5://host:1080"``), a :class:`~kobrowser.Proxy` or a dict
            with its keys (``server``, ``username``, ``password``,
            ``bypass``). Contexts made without a proxy of their own use it
            too. Credentials are answered on the proxy's challenge (Chrome
            then pauses each request once; see the proxies guide); a proxy
            that refuses them makes navigations fail with
            :class:`~kobrowser.NavigationError`. Chrome never sends
            loopback addresses through a proxy unless ``bypass`` holds
            ``"<-loopback>"``.
        ids: how snapshots number elements: ``"depth-first"`` (1, 2, 3...
            in print order, renumbered by every snapshot) or ``"stable"``
            (an element keeps its id in its tab for as long as it exists;
            ids are never reused; see docs/snapshot-format.md).

    On exit (also when the block raises or is cancelled) Chrome is closed
    gracefully, then terminated, then killed, and its profile is removed.

    Raises:
        LaunchError: no browser found, or it failed to start.
        InvalidArgumentError: a bad argument (nothing is started).
    """
    launch_options(
        headless=headless,
        executable_path=executable_path,
        args=args,
        timeout=timeout,
        no_sandbox=no_sandbox,
        download_dir=download_dir,
        transport=transport,
        ids=ids,
    )
    checked_proxy = to_proxy(proxy)
    executable = find_chrome(executable_path)
    process = ChromeProcess(
        executable,
        headless=headless,
        args=[*args, *launch_proxy_args(checked_proxy)],
        no_sandbox=no_sandbox,
        transport=transport,
    )
    return Browser(
        process=process,
        timeout=timeout,
        download_dir=download_dir,
        proxy=checked_proxy,
        ids=ids,
    )


def connect(
    endpoint: str,
    *,
    timeout: float = 30.0,
    download_dir: str | os.PathLike[str] | None = None,
    ids: IdMode = "depth-first",
) -> Browser:
    """Attach to a running Chrome over CDP.

    Args:
        endpoint: ``ws://host:port/devtools/browser/<id>``, ``http://host:port``
            or ``host:port``.
        timeout: connect deadline and default deadline of every CDP call and wait.
        download_dir: as for :func:`launch` (a path on the browser's machine).
        ids: as for :func:`launch`.

    Leaving the ``async with`` block closes the tabs and contexts this
    Browser opened and the connection, never the remote browser itself. The
    browser's existing tabs appear in :attr:`Browser.tabs` too.

    Raises:
        InvalidArgumentError: a bad argument (nothing is connected).
    """
    connect_options(endpoint=endpoint, timeout=timeout, download_dir=download_dir, ids=ids)
    return Browser(endpoint=endpoint, timeout=timeout, download_dir=download_dir, ids=ids)
