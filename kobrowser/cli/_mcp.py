"""``ko-browser mcp``: the parsed command line -> :func:`kobrowser.mcp.serve`, in the foreground.

The client (:mod:`kobrowser.cli._client._main`) hands the command over here
instead of sending it to a daemon; its arguments are defined with the other
commands' (:mod:`kobrowser.cli._client._parser`). Imported only for this
command, and it imports the MCP SDK only after checking it is installed, so
a missing extra is one clear line.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["main"]


def main(args: dict[str, Any], options: dict[str, Any]) -> int:
    """Run the MCP server in the foreground until the host goes; return the exit status.

    ``args`` are the ``mcp`` subcommand's arguments and ``options`` the
    global ones (``headed``, ``executable_path``, ``cdp``, ``timeout``, ``ids``), as
    the ``ko-browser`` parser gives them.
    """
    try:
        import mcp.server.mcpserver  # noqa: F401
    except ImportError as exc:
        sys.stderr.write(
            f"ko-browser: `ko-browser mcp` needs the MCP SDK ({exc}); "
            "install it with: pip install 'ko-browser[mcp]'\n"
        )
        return 1
    import anyio

    import kobrowser
    from kobrowser.mcp import ServeOptions, serve
    from kobrowser.mcp._stopping import say

    upload_dir = args.get("allow_upload_from")
    if upload_dir is not None and not os.path.isdir(upload_dir):
        say(f"--allow-upload-from {upload_dir}: no such directory")
        return 2
    files = args.get("allow_file_access")
    if files is not None and not os.path.isdir(files):
        say(f"--allow-file-access {files}: no such directory")
        return 2
    downloads = args.get("download_dir")
    if downloads is not None and not os.path.isdir(downloads):
        say(f"--download-dir {downloads}: no such directory")
        return 2
    secrets: dict[str, str] = {}
    for name in args.get("secret") or ():
        value = os.environ.get(f"KOBROWSER_SECRET_{name}")
        if not name.isidentifier() or not value:
            say(f"--secret {name}: set the environment variable KOBROWSER_SECRET_{name}")
            return 2
        secrets[name] = value
    config = ServeOptions(
        port=args.get("port"),
        host=args.get("host"),
        snapshot=args.get("snapshot") or "interactive",
        allow_evaluate=bool(args.get("allow_evaluate")),
        tools=args.get("tools") or "all",
        upload_dir=upload_dir,
        allow_origins=tuple(args.get("allow_origin") or ()),
        block_origins=tuple(args.get("block_origin") or ()),
        allow_file_access=files,
        download_dir=downloads,
        secrets=secrets,
        token=args.get("token") or os.environ.get("KOBROWSER_MCP_TOKEN") or None,
        headed=bool(options.get("headed")),
        executable_path=options.get("executable_path"),
        cdp=options.get("cdp"),
        timeout=options.get("timeout") or 30.0,
        ids="stable" if options.get("ids") == "stable" else "depth-first",
        trace_dir=args.get("trace_dir"),
        view=bool(args.get("view")),
    )
    try:
        anyio.run(serve, config)
    except kobrowser.KoBrowserError as exc:
        say(" ".join(str(exc).split("\n", 1)[0].split()))
        return 1
    except OSError as exc:
        say(f"cannot serve: {exc}")
        return 1
    return 0
