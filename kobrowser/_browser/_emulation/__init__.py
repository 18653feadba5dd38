"""Emulation: what a context (or one tab) pretends to be.

``_settings`` holds :class:`EmulationOptions` (the one list of emulation
keyword arguments: ``Browser.new_context``, ``BrowserContext.emulate`` and
the checker take exactly it), the settings and the CDP calls for them,
``_calls`` applies them to every session of a context, ``_devices`` is the
built-in device table. This package re-exports nothing.
"""
