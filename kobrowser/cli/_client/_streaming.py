"""Client side of the commands that stream progress lines: ``batch`` and ``agent``.

Standard library only (the client imports it for these two commands).

* ``prepare`` reads what the daemon cannot: the batch file (or stdin) from
  the client's directory, and the agent's model settings and API key from
  the client's environment (the daemon's may be older). A missing model,
  key or file is a usage error (exit 2) before anything is sent.
* ``progress_printer`` prints each progress line as it arrives: its text,
  or with ``--json`` its object, one per line.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys

from kobrowser.cli._client._connection import ClientError

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the client never imports typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["STREAMED", "STREAM_GRACE", "prepare", "progress_printer"]

#: Commands whose daemon side sends progress lines before its reply.
STREAMED = frozenset({"batch", "agent", "view"})
#: The environment variable ``ko-browser view`` reads its token from.
VIEW_TOKEN_ENV = "KOBROWSER_VIEW_TOKEN"
#: Extra seconds the client waits for each line of these commands (a hang
#: guard only: the daemon bounds every action and every model call).
STREAM_GRACE = 600.0


def usage_error(message: str, hint: str = "") -> ClientError:
    return ClientError(message, hint, "UsageError", exit=2)


def prepare(cmd: str, args: dict[str, Any]) -> dict[str, Any]:
    """The request arguments of ``batch``, ``agent`` or ``view`` (a usage error: exit 2)."""
    if cmd == "batch":
        return _batch(args)
    if cmd == "view":
        return _view(args)
    return _agent(args)


def _view(args: dict[str, Any]) -> dict[str, Any]:
    # The token travels over the owner-only socket, never on the daemon's command line.
    token = args.get("token") or os.environ.get(VIEW_TOKEN_ENV) or None
    host = args.get("host")
    local = host is None or host in ("::1", "localhost") or host.startswith("127.")
    if token is None and not local:
        raise usage_error(
            f"--host {host} is not a loopback address: give a token (--token, or the "
            f"environment variable {VIEW_TOKEN_ENV}) that every client must send"
        )
    return {**args, "token": token}


def _batch(args: dict[str, Any]) -> dict[str, Any]:
    source = args.pop("file")
    if source == "-":
        name = "stdin"
        text = sys.stdin.read() if sys.stdin is not None else ""
    else:
        name = source
        try:
            with open(source, encoding="utf-8") as file:
                text = file.read()
        except OSError as exc:
            raise usage_error(f"batch: cannot read {source}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise usage_error(f"batch: {source} is not UTF-8 text") from None
    if not text.strip():
        raise usage_error(
            f"batch: no action lines in {name}",
            'write one action a line, e.g. `click 5` or `fill 3 "hello"`',
        )
    return {**args, "text": text, "source": name}


def _agent(args: dict[str, Any]) -> dict[str, Any]:
    if not args["goal"].strip():
        raise usage_error("agent needs a goal", 'e.g. ko-browser agent "Find the contact email"')
    model = args.pop("model") or os.environ.get("KOBROWSER_MODEL")
    if not model:
        raise usage_error(
            "agent needs a model", "pass --model NAME (e.g. gpt-4o-mini) or set KOBROWSER_MODEL"
        )
    base_url = args.pop("base_url") or os.environ.get("OPENAI_BASE_URL")
    chosen = args.pop("api_key_env")
    variable = chosen or "OPENAI_API_KEY"
    key = os.environ.get(variable)
    if not key and chosen:
        raise usage_error(f"--api-key-env {variable}: ${variable} is not set")
    if not key and not base_url:
        raise usage_error(
            "agent needs an API key",
            "set OPENAI_API_KEY, or pass --api-key-env VAR; for a local server "
            "without keys pass --base-url URL",
        )
    if importlib.util.find_spec("openai") is None:
        raise usage_error("agent needs the openai package", "pip install 'ko-browser[openai]'")
    if args["trace"] is not None:
        args["trace"] = os.path.abspath(args["trace"])
        if not os.path.isdir(os.path.dirname(args["trace"])):
            raise usage_error(f"--trace {args['trace']}: no such directory")
    files = args["allow_file_access"]
    if files is not None and not os.path.isdir(files):
        raise usage_error(f"--allow-file-access {files}: no such directory")
    downloads = args["download_dir"]
    if downloads is not None and not os.path.isdir(downloads):
        raise usage_error(f"--download-dir {downloads}: no such directory")
    if downloads is not None:
        args["download_dir"] = os.path.realpath(downloads)
    # Secrets are read here, from the environment of the command that names them,
    # and travel to the daemon over its owner-only socket, never on a command line.
    secrets: dict[str, str] = {}
    for name in args.pop("secret") or ():
        value = os.environ.get(f"KOBROWSER_SECRET_{name}")
        if not name.isidentifier() or not value:
            raise usage_error(
                f"--secret {name}: set the environment variable KOBROWSER_SECRET_{name}"
            )
        secrets[name] = value
    return {**args, "model": model, "base_url": base_url, "api_key": key, "secrets": secrets}


def progress_printer(
    as_json: bool, write: Callable[[str], None]
) -> Callable[[dict[str, Any]], None]:
    """Print each progress message (its ``text``, or its ``progress`` object as JSON)."""

    def show(message: dict[str, Any]) -> None:
        progress = message.get("progress")
        if isinstance(progress, dict) and progress.get("heartbeat"):
            return  # a long command's sign of life (view): nothing to print
        if as_json:
            write(json.dumps(message.get("progress"), ensure_ascii=False) + "\n")
        else:
            write(str(message.get("text", "")) + "\n")

    return show
