"""The offline agent example of docs/agents.md (examples/agent_local.py) runs as documented.

It starts the demo pages, a stand-in model behind a local
``/v1/chat/completions`` and Chromium, and drives the loop through
:class:`~kobrowser.agent.OpenAIChat`: no network, no model weights.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "agent_local.py"


@pytest.mark.browser
@pytest.mark.timeout(300)
def test_agent_local_example_reaches_the_goal() -> None:
    run = subprocess.run(
        [sys.executable, str(EXAMPLE), "--max-steps", "6"],
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    # The transcript in docs/agents.md: express, the card, then done with the total.
    assert re.fullmatch(r"1\. click \d+ -> clicked \d+ \[\d+ prompt tokens\]", lines[0]), lines
    assert re.fullmatch(
        r'2\. fill \d+ "4242 4242 4242 4242" -> filled \d+ \[\d+ prompt tokens\]', lines[1]
    ), lines
    assert lines[-1].startswith("answer: ") and "total" in lines[-1], lines
