"""The `ko-browser` client: parse a command line, send it to the session's daemon, print.

Standard library only (no anyio, aiohttp, msgspec or library module), so a
command with a warm daemon costs little more than Python's own start-up.
It never imports the daemon: it starts it as a process.
"""
