"""The live view: a local web page showing a browser's current tab, its snapshot and actions."""

from kobrowser.view._server import TOKEN_ENV, LiveView

__all__ = ["TOKEN_ENV", "LiveView"]
