"""The tab: :class:`Tab` and the helpers it is composed of (see ``_tab``).

``_owner`` and ``_verbs`` hold the protocols the tab is typed against for
what sits above it (its browser and context); nothing here imports
``kobrowser._browser``.
"""

from __future__ import annotations

from kobrowser._tab._dialogs import Dialog, Dialogs
from kobrowser._tab._network._console import Console
from kobrowser._tab._network._network import Network
from kobrowser._tab._pagestate import Response
from kobrowser._tab._tab import Tab

__all__ = ["Console", "Dialog", "Dialogs", "Network", "Response", "Tab"]
