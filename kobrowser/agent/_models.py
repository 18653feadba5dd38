"""Language models for the agent: the ChatModel protocol and two implementations.

* :class:`OpenAIChat` talks to any OpenAI-compatible ``/v1/chat/completions``
  server (OpenAI, vLLM, Ollama, OpenRouter, llama.cpp...) through the
  official ``openai`` package (``pip install 'ko-browser[openai]'``).
* :class:`ScriptedModel` answers from a script: fixed replies, or functions
  of the prompt. For tests and demos.

Any object with ``async def complete(self, messages) -> str`` is a model.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Awaitable, Callable, Iterable, Iterator
from types import TracebackType
from typing import Any, Literal, Protocol, TypedDict

from kobrowser._exceptions import ModelError

__all__ = ["ChatModel", "Message", "OpenAIChat", "Reply", "ScriptedModel"]


class Message(TypedDict):
    """One chat message, as OpenAI-compatible servers take it."""

    role: Literal["system", "user", "assistant"]
    content: str


class ChatModel(Protocol):
    """What the agent needs of a model: the reply to a list of messages."""

    async def complete(self, messages: list[Message]) -> str:
        """Return the model's reply (its text) to ``messages``.

        Raises:
            ModelError: the model could not be reached or refused.
        """
        ...


#: A scripted reply: a string, or a function of the messages (may be async).
Reply = str | Callable[[list[Message]], "str | Awaitable[str]"]


class ScriptedModel:
    """A model that answers from a script, for tests and demos.

    Args:
        script: the replies, in order; each is a string or a function that
            gets the messages and returns the reply (sync or async). A
            single function answers every call.

    Attributes:
        prompts: the messages of every call, in order.

    Example::

        def act(messages):
            prompt = messages[-1]["content"]
            button = re.search(r'(\\d+): button "Search"', prompt).group(1)
            return f"click {button}"

        model = ScriptedModel([act, 'done "searched"'])
    """

    def __init__(self, script: Iterable[Reply] | Callable[[list[Message]], Any]) -> None:
        self._repeat: Callable[[list[Message]], Any] | None = None
        self._script: Iterator[Reply] = iter(())
        if callable(script) and not isinstance(script, str):
            self._repeat = script
        else:
            self._script = iter(script)
        self.prompts: list[list[Message]] = []

    async def complete(self, messages: list[Message]) -> str:
        """The next reply of the script.

        Raises:
            ModelError: the script has no reply left.
        """
        self.prompts.append([Message(role=m["role"], content=m["content"]) for m in messages])
        reply: Any = self._repeat
        if reply is None:
            try:
                reply = next(self._script)
            except StopIteration:
                raise ModelError(
                    f"the scripted model has no reply left after {len(self.prompts) - 1} call(s)"
                ) from None
        if callable(reply):
            reply = reply(messages)
            if inspect.isawaitable(reply):
                reply = await reply
        if not isinstance(reply, str):
            raise ModelError(f"a scripted reply must be a str, not {type(reply).__name__}")
        return reply


class OpenAIChat:
    """A chat model behind an OpenAI-compatible ``/v1/chat/completions`` endpoint.

    Needs the ``openai`` package (``pip install 'ko-browser[openai]'``).

    Args:
        model: the model name, e.g. ``"gpt-4o-mini"`` or ``"qwen2.5:7b"``.
        base_url: the server's API root, e.g. ``"http://127.0.0.1:11434/v1"``
            (default: ``$OPENAI_BASE_URL`` or OpenAI's).
        api_key: the key (default: ``$OPENAI_API_KEY``). With a ``base_url``
            and no key anywhere, a placeholder is sent: local servers ignore it.
        timeout: seconds for one reply (the whole request).
        max_retries: retries of a failed request (connection errors, 429, 5xx).
        **options: more arguments of ``chat.completions.create``
            (``temperature=0``, ``max_tokens=300``...).

    Use it as an async context manager, or call :meth:`aclose`, to close
    its HTTP connections.

    Raises:
        ModelError: the ``openai`` package is missing, or there is no key.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 120.0,
        max_retries: int = 2,
        **options: Any,
    ) -> None:
        if not model:
            raise ModelError("OpenAIChat needs a model name")
        try:
            import openai
        except ImportError:
            raise ModelError(
                "OpenAIChat needs the openai package: pip install 'ko-browser[openai]'"
            ) from None
        if not api_key and not os.environ.get("OPENAI_API_KEY"):
            if base_url is None:
                raise ModelError(
                    "no API key: pass api_key=, set OPENAI_API_KEY, or give the base_url "
                    "of a server that needs none"
                )
            api_key = "not-needed"
        elif not api_key:
            api_key = None  # the openai package reads OPENAI_API_KEY
        self.model = model
        self.options = options
        self._openai = openai
        self._client = openai.AsyncOpenAI(
            base_url=base_url, api_key=api_key, timeout=timeout, max_retries=max_retries
        )

    @property
    def base_url(self) -> str:
        """The API root requests go to."""
        return str(self._client.base_url)

    async def complete(self, messages: list[Message]) -> str:
        """The model's reply to ``messages`` (its text; "" when it has none).

        Raises:
            ModelError: the server could not be reached, refused the request
                (bad key, unknown model) or timed out; the message says which.

        Cancelling the caller cancels the request.
        """
        try:
            response = await self._client.chat.completions.create(
                model=self.model,
                messages=messages,  # type: ignore[arg-type]
                **self.options,
            )
        except self._openai.APIStatusError as exc:
            detail = _status_detail(exc)
            raise ModelError(
                f"model {self.model!r} at {self.base_url} answered HTTP {exc.status_code}: {detail}"
            ) from None
        except self._openai.APITimeoutError:
            raise ModelError(f"model {self.model!r} at {self.base_url} timed out") from None
        except self._openai.APIConnectionError as exc:
            raise ModelError(f"cannot reach {self.base_url}: {exc}") from None
        except self._openai.OpenAIError as exc:
            raise ModelError(f"model {self.model!r}: {exc}") from None
        if not response.choices:
            raise ModelError(f"model {self.model!r} sent no choices")
        return response.choices[0].message.content or ""

    async def aclose(self) -> None:
        """Close the HTTP connections. Idempotent."""
        await self._client.close()

    async def __aenter__(self) -> OpenAIChat:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"<OpenAIChat {self.model!r} at {self.base_url}>"


def _status_detail(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        message = error.get("message") if isinstance(error, dict) else error
        if message:
            return " ".join(str(message).split())[:300]
    return " ".join(str(getattr(exc, "message", exc)).split())[:300]
