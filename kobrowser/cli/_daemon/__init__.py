"""The `ko-browser` session daemon: owns one Browser, serves commands on a Unix socket.

Started by the client as ``python -m kobrowser.cli._daemon`` (see
:mod:`._process`); :mod:`._serving` reads and checks each request, and
:mod:`._registry` is the one table of the commands it runs, each a typed
function of its family's module calling the library.
"""
