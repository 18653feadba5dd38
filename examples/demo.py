"""kobrowser demo: snapshot a small checkout page with a cross-origin iframe.

Serves examples/demo/ on two local origins, so the "Payment" iframe is
cross-origin and Chrome runs it in a separate process:

* the page:           http://127.0.0.1:PORT/
* the Payment iframe: http://localhost:PORT2/payment.html

then launches Chrome with kobrowser and prints the page's snapshot.

    .venv/bin/python examples/demo.py            # print the snapshot
    .venv/bin/python examples/demo.py -i         # interactive elements only
    .venv/bin/python examples/demo.py --serve    # only serve the page (Ctrl-C stops)
    .venv/bin/python examples/demo.py --screenshot docs/demo-annotated.png
                                                 # also save a screenshot with the ids drawn
"""

from __future__ import annotations

import argparse
import asyncio
import mimetypes
import socket
import sys
from pathlib import Path
from typing import Any

from aiohttp import web

DEMO_DIR = Path(__file__).resolve().parent / "demo"


def make_app(cross_origin: str) -> web.Application:
    """Serve DEMO_DIR; ``{{CROSS_ORIGIN}}`` in HTML becomes the other origin."""

    async def handle(request: web.Request) -> web.StreamResponse:
        name = request.path.strip("/") or "index.html"
        file = (DEMO_DIR / name).resolve()
        if not file.is_relative_to(DEMO_DIR) or not file.is_file():
            return web.Response(status=404, text=f"not found: {request.path}")
        ctype = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        body = file.read_bytes()
        if ctype == "text/html":
            body = body.replace(b"{{CROSS_ORIGIN}}", cross_origin.encode())
        return web.Response(
            body=body,
            headers={"Content-Type": f"{ctype}; charset=utf-8", "Cache-Control": "no-store"},
        )

    app = web.Application()
    app.router.add_route("GET", "/{tail:.*}", handle)
    return app


def listen() -> tuple[socket.socket, int]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    sock.setblocking(False)
    port: int = sock.getsockname()[1]
    return sock, port


async def serve() -> tuple[web.AppRunner, str]:
    """Start both origins on 127.0.0.1; return the runner and the page URL."""
    main_sock, main_port = listen()
    cross_sock, cross_port = listen()
    # Both listeners are on 127.0.0.1; the iframe is addressed as "localhost",
    # which is a different site to Chrome, so it gets its own renderer process.
    runner = web.AppRunner(
        make_app(cross_origin=f"http://localhost:{cross_port}"),
        access_log=None,
        shutdown_timeout=1.0,
    )
    await runner.setup()
    for sock in (main_sock, cross_sock):
        await web.SockSite(runner, sock).start()
    return runner, f"http://127.0.0.1:{main_port}/"


async def ax_node_count(tab: Any) -> int:
    """Nodes in the top frame's accessibility tree (fallback before snapshot())."""
    result = await tab.cdp.send("Accessibility.getFullAXTree")
    return len(result.get("nodes", []))


async def run(args: argparse.Namespace) -> int:
    try:
        import kobrowser

        launch = kobrowser.launch
    except (ImportError, AttributeError) as exc:
        print(
            f"demo: kobrowser.launch is not available yet ({exc}).\n"
            "The browser API (issue 2) is still being built; re-run when it has landed.",
            file=sys.stderr,
        )
        return 2

    runner, url = await serve()
    try:
        if args.serve:
            print(f"serving the demo page at {url} (Ctrl-C stops)", flush=True)
            await asyncio.Event().wait()
        try:
            async with launch(headless=not args.headed) as browser:
                tab = await browser.new_tab(url)
                if hasattr(tab, "snapshot"):
                    options: dict[str, Any] = {}
                    if args.interactive:
                        options["interactive"] = True
                    if args.compact:
                        options["compact"] = True
                    snap = await tab.snapshot(**options)
                    print(snap.text, end="" if snap.text.endswith("\n") else "\n")
                    if args.screenshot:
                        await tab.screenshot(args.screenshot, annotate=True)
                        print(f"annotated screenshot: {args.screenshot}", file=sys.stderr)
                else:
                    title = await tab.cdp.send(
                        "Runtime.evaluate", {"expression": "document.title", "returnByValue": True}
                    )
                    count = await ax_node_count(tab)
                    print(f"Page: {title['result']['value']!r} at {url}")
                    print(f"Accessibility tree of the top frame: {count} nodes")
                    print("(tab.snapshot() is not available yet: the snapshot engine, issue 3)")
        except kobrowser.LaunchError as exc:
            print(f"demo: could not start Chrome: {exc}\nRun scripts/setup.sh.", file=sys.stderr)
            return 1
    finally:
        await runner.cleanup()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("-i", "--interactive", action="store_true", help="interactive only")
    parser.add_argument("-c", "--compact", action="store_true", help="drop unnamed structure")
    parser.add_argument("--headed", action="store_true", help="show the browser window")
    parser.add_argument("--serve", action="store_true", help="only serve the page, no browser")
    parser.add_argument(
        "--screenshot",
        metavar="PATH",
        default=None,
        help="also save a screenshot with the snapshot's ids drawn on it (needs Pillow)",
    )
    args = parser.parse_args(argv)
    try:
        return asyncio.run(run(args))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
