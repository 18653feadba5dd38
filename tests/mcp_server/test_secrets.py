"""Secrets: filled by name, never in a reply of the MCP server (in-process, Chromium)."""

from __future__ import annotations

import pytest
from _server import PageServer
from mcp import Client

from kobrowser import Browser, Policy
from kobrowser.mcp import build_server

from .conftest import call, find_id

pytestmark = pytest.mark.anyio

VALUE = "correct-horse-9431"
PAGE = """<!doctype html><title>Login</title>
<label>User <input id="user"></label>
<label>Password <input id="pw" type="password"></label>
<p id="echo"></p>
<script>
  for (const input of document.querySelectorAll('input'))
    input.addEventListener('input', () => {
      document.getElementById('echo').textContent = 'typed: ' + input.value;
      document.title = 'Login ' + input.value;
    });
</script>
"""


async def test_a_secret_never_reaches_an_mcp_reply(
    browser: Browser, server: PageServer, tabs_closed: Browser
) -> None:
    url = server.set_page("/secret-login.html", PAGE)
    policy = Policy(secrets={"password": VALUE}, allow_evaluate=True)
    async with Client(build_server(browser, policy=policy, snapshot="full")) as client:
        assert "{{password}}" in (client.instructions or "")
        replies = [await call(client, "open", url=url)]
        user = find_id(replies[0], r'^textbox "User"')
        replies.append(await call(client, "fill", id=user, text="{{password}}"))
        assert await browser.tab.evaluate("document.getElementById('user').value") == VALUE
        assert 'value="{{password}}"' in replies[-1]
        assert "typed: {{password}}" in replies[-1]
        replies.append(await call(client, "snapshot", interactive=False))
        echo = find_id(replies[-1], r"typed:")
        replies.append(await call(client, "text", id=echo))
        assert "{{password}}" in replies[-1]
        replies.append(
            await call(client, "evaluate", expression="document.getElementById('user').value")
        )
        assert replies[-1] == '"{{password}}"'
        replies.append(await call(client, "tabs", action="list"))  # the title holds it too
        password = find_id(replies[1], r'^textbox "Password"')
        replies.append(await call(client, "fill", id=password, text="{{password}}"))
        replies.append(await call(client, "click", id=999, error=True))
        for reply in replies:
            assert VALUE not in reply, reply
    await browser.default_context.set_policy(None)
