"""OpenAIChat against a local fake /v1/chat/completions server, alone and in the loop."""

from __future__ import annotations

import re
from typing import Any

import pytest
from _fake_openai import FakeChat
from _server import PageServer

import kobrowser
from kobrowser.agent import Agent, Message, OpenAIChat

from ._signup import EMAIL_FRAME, PERSON, SIGNUP, signup_policy

pytestmark = pytest.mark.anyio


async def test_complete_sends_the_messages_and_returns_the_reply(server: PageServer) -> None:
    chat = FakeChat(server, lambda messages: f"echo {messages[-1]['content']}")
    messages = [Message(role="system", content="rules"), Message(role="user", content="hi")]
    async with OpenAIChat("fake-model", chat.base_url, "sk-test", temperature=0) as model:
        assert await model.complete(messages) == "echo hi"
    (request,) = chat.requests
    assert request["auth"] == "Bearer sk-test"
    assert request["body"]["model"] == "fake-model"
    assert request["body"]["temperature"] == 0
    assert request["body"]["messages"] == [
        {"role": "system", "content": "rules"},
        {"role": "user", "content": "hi"},
    ]


async def test_server_errors_become_model_errors(server: PageServer) -> None:
    chat = FakeChat(server, lambda messages: (401, "Incorrect API key provided"))
    async with OpenAIChat("m", chat.base_url, "bad", max_retries=0) as model:
        with pytest.raises(kobrowser.ModelError, match="HTTP 401: Incorrect API key provided"):
            await model.complete([Message(role="user", content="x")])
    FakeChat(server, lambda messages: (404, "The model `nope` does not exist"))
    async with OpenAIChat("nope", chat.base_url, "k", max_retries=0) as model:
        with pytest.raises(kobrowser.ModelError, match="HTTP 404: The model `nope` does not"):
            await model.complete([Message(role="user", content="x")])
    async with OpenAIChat("m", "http://127.0.0.1:1/v1", "k", max_retries=0) as model:
        with pytest.raises(
            kobrowser.ModelError, match=re.escape("cannot reach http://127.0.0.1:1/v1")
        ):
            await model.complete([Message(role="user", content="x")])


async def test_a_server_that_never_answers_times_out(server: PageServer) -> None:
    chat = FakeChat(server, lambda messages: "never sent")
    gate = server.hold("/v1/chat/completions")
    try:
        async with OpenAIChat("m", chat.base_url, "k", timeout=1, max_retries=0) as model:
            with pytest.raises(kobrowser.ModelError, match="timed out"):
                await model.complete([Message(role="user", content="x")])
    finally:
        gate.release()


def test_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(kobrowser.ModelError, match="no API key"):
        OpenAIChat("m")
    with pytest.raises(kobrowser.ModelError, match="needs a model name"):
        OpenAIChat("")
    local = OpenAIChat("m", "http://127.0.0.1:9/v1")  # a local server needs no key
    assert local.base_url.startswith("http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    assert "OpenAIChat 'm'" in repr(OpenAIChat("m"))


async def test_the_loop_with_openai_chat(open_tab: Any, server: PageServer) -> None:
    def policy(messages: list[dict[str, Any]]) -> str:
        return signup_policy([Message(role=m["role"], content=m["content"]) for m in messages])

    chat = FakeChat(server, policy)
    server.set_page("/oa-email.html", EMAIL_FRAME)
    url = server.set_page(
        "/oa-signup.html", SIGNUP.replace("FRAME_URL", server.cross_url("/oa-email.html"))
    )
    async with open_tab(url) as tab, OpenAIChat("fake", chat.base_url, "k") as model:
        result = await Agent(tab, model, max_steps=10).run("Sign up as Ada Lovelace")
    assert result.done, "\n".join(map(str, result.steps))
    assert result.answer is not None and PERSON["email"] in result.answer
    assert len(chat.requests) == len(result.steps)
    system = chat.requests[0]["body"]["messages"][0]
    assert system["role"] == "system" and 'fill 3 "text"' in system["content"]
