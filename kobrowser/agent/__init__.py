"""The agent loop: the reference way to let a language model drive kobrowser.

::

    observe (snapshot) -> prompt (goal, recent steps, snapshot) -> model
        -> parse action(s) -> execute -> observe again

:class:`Agent` runs the loop (``await agent.run(goal)`` or
``async for step in agent.steps(goal)``), :mod:`._prompt` builds its short
prompt, and the models are any :class:`ChatModel`: :class:`OpenAIChat`
(any OpenAI-compatible server, ``pip install 'ko-browser[openai]'``) or
:class:`ScriptedModel` (tests and demos).

This is a face: it uses only kobrowser's public API (the tab or browser, the
action grammar and executor of :mod:`kobrowser.actions`), and no library
module imports it.
"""

from __future__ import annotations

from kobrowser.agent._loop import Agent, AgentResult, Step
from kobrowser.agent._models import ChatModel, Message, OpenAIChat, Reply, ScriptedModel
from kobrowser.agent._prompt import build_messages, outcome_text, system_prompt, token_counter

__all__ = [
    "Agent",
    "AgentResult",
    "ChatModel",
    "Message",
    "OpenAIChat",
    "Reply",
    "ScriptedModel",
    "Step",
    "build_messages",
    "outcome_text",
    "system_prompt",
    "token_counter",
]
