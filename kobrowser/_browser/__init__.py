"""The browser: :class:`Browser` and the components it is made of.

* ``_browser``: :class:`Browser`, the connection's owner; the verbs an agent
  uses act on the current tab (``browser.tab``) and are written out with
  :class:`~kobrowser.Tab`'s signatures (``tests/browser/test_forwarding.py``
  keeps them in step);
* ``_targets``: :class:`~._targets.TargetTracker`, which page targets
  exist, their tabs' set-up, the current tab;
* ``_context``: :class:`BrowserContext`, isolated sets of tabs (it reaches
  its browser through the :class:`~._context.ContextOwner` protocol);
* ``_downloads``: :class:`Download` and the browser's download events;
* ``_storage``, ``_cookies``: the storage state and cookies of a context;
* ``_emulation``: what a context emulates (one list of options);
* ``_launch``: :func:`launch` and :func:`connect`.
"""

from __future__ import annotations

from kobrowser._browser._browser import Browser
from kobrowser._browser._context import BrowserContext
from kobrowser._browser._downloads import Download
from kobrowser._browser._launch import connect, launch

__all__ = ["Browser", "BrowserContext", "Download", "connect", "launch"]
