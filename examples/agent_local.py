"""kobrowser agent loop against a local OpenAI-compatible server.

Drives the demo checkout page (examples/demo/, with two cross-origin
iframes) towards a goal with :class:`kobrowser.agent.Agent` and
:class:`kobrowser.agent.OpenAIChat`:

    # offline: a stand-in model behind a local /v1/chat/completions server
    .venv/bin/python examples/agent_local.py

    # a real local model (Ollama, vLLM, llama.cpp server, LM Studio...)
    .venv/bin/python examples/agent_local.py --base-url http://127.0.0.1:11434/v1 --model qwen2.5:7b

The stand-in "model" is a few rules that read the snapshot in the prompt it
receives (it finds every id there, as a model would); it shows the loop,
the prompt and the outcomes without any network or model weights.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from typing import Any

from aiohttp import web
from demo import listen, serve

import kobrowser
from kobrowser.agent import Agent, OpenAIChat, Step

GOAL = (
    "Choose express delivery, enter the card number 4242 4242 4242 4242, "
    "then tell me the cart total."
)


def stand_in_model(prompt: str) -> str:
    """Rules that read the current page from the prompt, as a model would."""
    page = prompt[prompt.rindex("\nURL: ") :]

    def line(pattern: str) -> re.Match[str]:
        found = re.search(r"(\d+): " + pattern, page)
        assert found is not None, f"{pattern!r} not on the page"
        return found

    express = line(r'radio "Express[^"]*"(.*)')
    if " checked" not in express.group(2):
        return f"The express option is {express.group(1)}.\nclick {express.group(1)}"
    card = line(r'textbox "Card number"(.*)')
    if "value=" not in card.group(2):
        return f'fill {card.group(1)} "4242 4242 4242 4242"'
    total = re.search(r'\d+: text "([^"]*total[^"]*)"', page)
    if total is None:  # the -i snapshot has no text lines
        return 'done "express and card set; the total is not in the -i snapshot"'
    return f'done "{total.group(1)}"'


async def start_stand_in() -> tuple[web.AppRunner, str]:
    """A local /v1/chat/completions endpoint answering with :func:`stand_in_model`."""

    async def completions(request: web.Request) -> web.Response:
        body = await request.json()
        reply = stand_in_model(body["messages"][-1]["content"])
        message = {"role": "assistant", "content": reply}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        completion = {"id": "x", "object": "chat.completion", "created": 0}
        return web.json_response({**completion, "model": body["model"], "choices": [choice]})

    app = web.Application()
    app.router.add_post("/v1/chat/completions", completions)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    sock, port = listen()
    await web.SockSite(runner, sock).start()
    return runner, f"http://127.0.0.1:{port}/v1"


async def run(args: argparse.Namespace) -> int:
    pages, url = await serve()
    stand_in: web.AppRunner | None = None
    base_url, model_name = args.base_url, args.model
    if base_url is None:
        stand_in, base_url = await start_stand_in()
        model_name = "stand-in"
    try:
        async with (
            kobrowser.launch(headless=not args.headed) as browser,
            OpenAIChat(model_name, base_url=base_url) as model,
        ):
            await browser.new_tab(url)
            agent = Agent(browser, model, max_steps=args.max_steps, interactive=args.interactive)

            def show(step: Step) -> None:
                print(f"{step} [{step.prompt_tokens} prompt tokens]", flush=True)

            result = await agent.run(GOAL, on_step=show)
            print(f"answer: {result.answer}" if result.done else f"gave up ({result.reason})")
            return 0 if result.done else 1
    except kobrowser.ModelError as exc:
        print(f"agent_local: {exc}", file=sys.stderr)
        return 1
    finally:
        if stand_in is not None:
            await stand_in.cleanup()
        await pages.cleanup()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--base-url", default=None, help="your OpenAI-compatible server")
    parser.add_argument("--model", default="qwen2.5:7b", help="model name (with --base-url)")
    parser.add_argument("--max-steps", type=int, default=10)
    parser.add_argument("-i", "--interactive", action="store_true", help="the -i snapshot")
    parser.add_argument("--headed", action="store_true", help="show the browser window")
    args: Any = parser.parse_args(argv)
    try:
        return asyncio.run(run(args))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
