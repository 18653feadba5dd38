"""``ko-browser scrape``: URLs in, one JSON line per URL out, in this process.

Unlike the other commands it does not go through the session daemon: it
runs its own browsers in the foreground (``kobrowser.cli`` hands the command
line over before parsing it). Each record is written as one line and
flushed, so an interrupted run leaves valid JSONL, and ``--resume`` skips the
URLs the file already has. On a terminal a progress bar (tqdm, from the
``ko-browser[scrape]`` extra) shows done, failed, pages/s and ETA on stderr;
otherwise only the summary is printed there.

Exit status: 0 every URL has an ``ok`` record, 1 some failed after their
retries (or the run was stopped), 2 bad usage.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import time
from typing import IO, TYPE_CHECKING, Any

from kobrowser._validate import LOAD_STATES
from kobrowser.cli._client._argtypes import proxy_url, resource_types, seconds, whole
from kobrowser.cli._client._parser import Parser, command_index

if TYPE_CHECKING:
    from collections.abc import Sequence

    from kobrowser.scrape._result import ScrapeResult

__all__ = ["main"]

PROG = "ko-browser scrape"

_EPILOG = """\
Input: one URL per line ('-' reads stdin); blank lines and lines starting
with '#' are skipped, a repeated URL is scraped once. Output: one JSON object
per URL (url, ok, final_url, status, title, snapshot, error, attempts,
elapsed), flushed line by line.

Exit status: 0 every URL has an ok record, 1 some failed after their
retries, 2 bad usage. Examples:

  ko-browser scrape urls.txt -o out.jsonl --concurrency 16 --per-host 4
  ko-browser scrape urls.txt -o out.jsonl --resume
  ko-browser scrape urls.txt -o out.jsonl --cdp ws://farm-1:3000 --cdp http://farm-2:9222
  ko-browser scrape urls.txt -o out.jsonl --proxy http://user:pw@p1:3128 --proxy socks5://p2:1080
  ko-browser scrape urls.txt -o out.jsonl --block image,font,media
  ko-browser scrape urls.txt -o out.jsonl --ray            # RAY_ADDRESS, else a local Ray
  ko-browser scrape urls.txt -o out.jsonl --ray head:6379 --concurrency 8
"""


class UsageError(Exception):
    """Bad usage found after parsing (exit 2)."""


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``ko-browser scrape``."""
    parser = Parser(
        prog=PROG,
        description="Scrape many URLs with many tabs (and browsers) into a JSONL file, "
        "in the foreground.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("urls", metavar="URLS_FILE", help="file of URLs, one a line; '-': stdin")
    parser.add_argument(
        "-o", "--output", default="-", metavar="OUT", help="JSONL file to write ('-': stdout)"
    )
    parser.add_argument(
        "--concurrency", type=whole(1), default=8, metavar="N", help="pages at once (default 8)"
    )
    parser.add_argument(
        "--cdp",
        action="append",
        default=[],
        metavar="URL",
        help="a browser endpoint to use (ws://..., http://host:port, host:port); repeat "
        "for a farm: tabs go to the least loaded",
    )
    parser.add_argument(
        "--browsers", type=whole(1), default=None, metavar="N", help="local Chromes (default 1)"
    )
    parser.add_argument(
        "--retries", type=whole(0), default=2, metavar="N", help="retries per page (default 2)"
    )
    parser.add_argument(
        "--per-host",
        type=whole(1, none=True),
        default=2,
        metavar="N|none",
        help="pages of one host at once (default 2)",
    )
    parser.add_argument("--resume", action="store_true", help="skip URLs already in OUT")
    parser.add_argument(
        "-i", "--interactive", action="store_true", help="interactive elements only"
    )
    parser.add_argument("-c", "--compact", action="store_true", help="drop unnamed structure")
    parser.add_argument("-d", "--depth", type=whole(0), default=None, metavar="N")
    parser.add_argument("-s", "--selector", default=None, metavar="CSS")
    parser.add_argument(
        "--text-limit",
        type=whole(4, none=True),
        default=80,
        metavar="N|none",
        help="cut names and texts at N characters; none: whole (default 80)",
    )
    parser.add_argument("--wait-until", choices=LOAD_STATES, default="load")
    parser.add_argument(
        "--timeout", type=seconds, default=30.0, metavar="SECONDS", help="per page (default 30)"
    )
    parser.add_argument(
        "--proxy",
        action="append",
        type=proxy_url,
        default=[],
        metavar="URL",
        help="a proxy for the pages (http://[user:password@]host:port, https://, socks5://); "
        "repeat to spread the pages over several, in turn",
    )
    parser.add_argument(
        "--block",
        type=resource_types,
        default=None,
        metavar="TYPES",
        help="resource types never loaded, e.g. image,font,media (faster, less traffic)",
    )
    parser.add_argument(
        "--ray",
        nargs="?",
        const="auto",
        default=None,
        type=ray_address,
        metavar="ADDRESS",
        help="run the browsers on a Ray cluster (ko-browser[ray]): one actor per "
        "'browser_slots' unit of its nodes, --concurrency tabs each; ADDRESS HOST:PORT or "
        "ray://HOST:PORT, default: RAY_ADDRESS, else a local Ray",
    )
    parser.add_argument("--executable-path", default=None, metavar="PATH")
    parser.add_argument("--headed", action="store_true", help="show the browser windows")
    return parser


def ray_address(text: str) -> str:
    """``--ray``'s value: ``auto`` or HOST:PORT / ray://HOST:PORT."""
    from kobrowser._exceptions import InvalidArgumentError
    from kobrowser.scrape._ray import check_ray

    try:
        checked = check_ray(text)
    except InvalidArgumentError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("ray: ")) from None
    assert checked is not None
    return checked


def _without_command(argv: Sequence[str]) -> list[str]:
    """``argv`` without the word ``scrape`` (the options before it are kept)."""
    index = command_index(argv)
    if index is None or argv[index] != "scrape":
        return list(argv)
    return [*argv[:index], *argv[index + 1 :]]


# -- input and output ------------------------------------------------------------


def read_urls(source: str) -> list[str]:
    """Distinct URLs of a file (or stdin for '-'), in order; blanks and '#' lines skipped."""
    if source == "-":
        text = sys.stdin.read()
    else:
        try:
            with open(source, encoding="utf-8", errors="replace") as file:
                text = file.read()
        except OSError as exc:
            raise UsageError(f"cannot read {source}: {exc.strerror or exc}") from None
    seen: dict[str, None] = {}
    for line in text.splitlines():
        url = line.strip()
        if url and not url.startswith("#"):
            seen.setdefault(url, None)
    return list(seen)


def recorded(path: str) -> dict[str, bool]:
    """URL -> whether it has an ok record, from an earlier run's JSONL.

    A last line cut short by a crash is removed from the file (it is
    rewritten by this run); other unreadable lines are skipped.
    """
    import msgspec

    try:
        with open(path, "rb") as file:
            data = file.read()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    if data and not data.endswith(b"\n"):
        keep = data.rfind(b"\n") + 1
        with open(path, "r+b") as file:
            file.truncate(keep)
        data = data[:keep]
    found: dict[str, bool] = {}
    for line in data.splitlines():
        try:
            record = msgspec.json.decode(line)
        except msgspec.DecodeError:
            continue
        if isinstance(record, dict) and isinstance(record.get("url"), str):
            url = record["url"]
            found[url] = found.get(url, False) or record.get("ok") is True
    return found


class Progress:
    """Done/failed counts, and a tqdm bar on a terminal."""

    def __init__(self, total: int, *, bar: bool) -> None:
        self.total = total
        self.ok = 0
        self.failed = 0
        self.started = time.monotonic()
        self._bar: Any = None
        if bar:
            try:
                tqdm = importlib.import_module("tqdm").tqdm  # untyped: no stubs needed
            except ImportError:
                sys.stderr.write(
                    f"{PROG}: no progress bar: install it with `pip install 'ko-browser[scrape]'`\n"
                )
            else:
                self._bar = tqdm(
                    total=total, unit="page", file=sys.stderr, dynamic_ncols=True, smoothing=0.05
                )
                self._bar.set_postfix(failed=0)

    def add(self, result: ScrapeResult, ray: dict[str, int] | None = None) -> None:
        """Count ``result``; ``ray``: the Scraper's ``ray_status`` (nodes alive shown)."""
        if result.ok:
            self.ok += 1
        else:
            self.failed += 1
        if self._bar is not None:
            if ray is not None:
                self._bar.set_postfix(nodes=ray["nodes"], failed=self.failed, refresh=False)
            elif not result.ok:
                self._bar.set_postfix(failed=self.failed, refresh=False)
            self._bar.update(1)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def summary(self, output: str, skipped: int, stopped: str | None) -> str:
        seconds = time.monotonic() - self.started
        done = self.ok + self.failed
        rate = done / seconds if seconds > 0 else 0.0
        text = (
            f"{PROG}: {done} of {self.total} URLs: {self.ok} ok, {self.failed} failed "
            f"in {seconds:.1f} s ({rate:.1f} pages/s)"
        )
        if skipped:
            text += f"; {skipped} already in {output}, skipped"
        if stopped:
            text += f"; {stopped}"
        if output != "-":
            text += f"; records in {output}"
        return text


# -- the run -----------------------------------------------------------------------


async def _scrape(
    urls: list[str],
    options: dict[str, Any],
    out: IO[bytes],
    progress: Progress,
    stopped: list[str],
) -> None:
    from contextlib import aclosing

    import anyio
    import msgspec

    import kobrowser

    encode = msgspec.json.Encoder().encode
    async with anyio.create_task_group() as tg:

        async def on_signal() -> None:
            # Ctrl-C cancels the run's scope like SIGTERM does, rather than
            # through asyncio.run's native cancel of the main task: that cancel
            # is delivered once, and a wait that absorbed it left the run going
            # until its pages timed out (exit 1, not 130).
            # A SIGINT the parent ignores (a background job of a script) stays ignored.
            ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
            wanted = (signal.SIGTERM,) if ignored else (signal.SIGINT, signal.SIGTERM)
            with anyio.open_signal_receiver(*wanted) as signals:
                async for signum in signals:
                    interrupted = signum == signal.SIGINT
                    stopped.append("interrupted" if interrupted else "stopped by SIGTERM")
                    tg.cancel_scope.cancel()
                    return

        tg.start_soon(on_signal)
        async with (
            kobrowser.Scraper(**options) as scraper,
            aclosing(scraper.run(urls)) as results,
        ):
            async for result in results:
                try:
                    out.write(encode(result) + b"\n")
                    out.flush()
                except BrokenPipeError:
                    stopped.append("the output was closed")
                    break
                progress.add(result, scraper.ray_status)
        tg.cancel_scope.cancel()


def main(argv: Sequence[str]) -> int:
    """Run ``ko-browser scrape`` (``argv`` may still hold the word ``scrape``)."""
    parser = build_parser()
    try:
        args = parser.parse_args(_without_command(argv))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    try:
        return _main(args)
    except UsageError as exc:
        sys.stderr.write(f"{PROG}: error: {exc}\n")
        return 2


def _run(
    urls: list[str], options: dict[str, Any], out: IO[bytes], progress: Progress, stopped: list[str]
) -> None:
    """Run the scrape; a library error that stops the whole run (no browser can
    start, Ray missing or unreachable) is told in one line (``stopped``)."""
    import anyio

    from kobrowser._exceptions import KoBrowserError

    try:
        anyio.run(_scrape, urls, options, out, progress, stopped)
    except* KoBrowserError as group:
        leaf: BaseException = group
        while isinstance(leaf, BaseExceptionGroup):
            leaf = leaf.exceptions[0]
        stopped.append(f"error: {leaf}")


def _main(args: argparse.Namespace) -> int:
    if args.cdp and args.browsers is not None:
        raise UsageError("--browsers launches local Chromes; it does not go with --cdp")
    if args.resume and args.output == "-":
        raise UsageError("--resume needs -o FILE (the records to resume from)")
    urls = read_urls(args.urls)
    previous = recorded(args.output) if args.resume else {}
    todo = [url for url in urls if url not in previous]
    options: dict[str, Any] = {
        "concurrency": args.concurrency,
        "endpoints": args.cdp or None,
        "browsers": args.browsers,
        "per_host": args.per_host,
        "wait_until": args.wait_until,
        "timeout": args.timeout,
        "retries": args.retries,
        "interactive": args.interactive,
        "compact": args.compact,
        "depth": args.depth,
        "selector": args.selector,
        "text_limit": args.text_limit,
        "headless": not args.headed,
        "proxies": args.proxy or None,
        "block_resources": args.block,
        "ray": args.ray,
    }
    if args.executable_path:
        options["executable_path"] = os.path.abspath(args.executable_path)
    if args.output == "-":
        out: IO[bytes] = sys.stdout.buffer
    else:
        try:
            out = open(args.output, "ab" if args.resume else "wb")  # noqa: SIM115
        except OSError as exc:
            raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    progress = Progress(len(todo), bar=sys.stderr.isatty())
    stopped: list[str] = []
    try:
        if todo:
            try:
                _run(todo, options, out, progress, stopped)
            except KeyboardInterrupt:
                stopped.append("interrupted")
    finally:
        progress.close()
        if out is not sys.stdout.buffer:
            out.close()
    skipped = len(urls) - len(todo)
    summary = progress.summary(args.output, skipped, stopped[0] if stopped else None)
    sys.stderr.write(summary + "\n")
    if stopped:
        return 130 if stopped[0] == "interrupted" else 1
    missing = progress.failed + sum(1 for url in urls if url in previous and not previous[url])
    return 1 if missing or progress.ok < len(todo) else 0
