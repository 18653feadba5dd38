"""Emulation: what a context (or one tab) pretends to be.

``_settings`` holds the settings and the CDP calls for them, ``_calls`` applies
them to every session of a context, ``_devices`` is the built-in device table.
This package re-exports nothing.
"""
