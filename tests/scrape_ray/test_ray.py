"""``scrape(..., ray=...)`` on real Ray clusters of several nodes, each test in its own netns.

Ray announces the machine's other interface even when told 127.0.0.1, and
tests may only talk to loopback, so every cluster runs in a network
namespace of its own (``unshare --net``, then ``ip link set lo up``): the
scenario (page server, ``ray.cluster_utils.Cluster``, the scrape) is
``_scenario.py`` in a subprocess there, and reports JSON that the tests
check. Needs root, ``unshare`` (util-linux) and ``ip`` (iproute2):
scripts/setup.sh installs them.
"""

from __future__ import annotations

import collections
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.timeout(600)]

SCENARIO = Path(__file__).resolve().parent / "_scenario.py"
#: Seconds a scenario may take before the test fails (the machine is shared).
SCENARIO_TIMEOUT = 540.0


def _can_unshare() -> str | None:
    if os.geteuid() != 0:
        return "needs root for unshare --net"
    for tool in ("unshare", "ip"):
        if shutil.which(tool) is None:
            return f"needs {tool} (scripts/setup.sh installs it)"
    return None


def run_scenario(name: str, **args: Any) -> dict[str, Any]:
    """Run ``_scenario.py NAME`` in a new network namespace; its JSON report."""
    problem = _can_unshare()
    if problem is not None:
        pytest.fail(problem)  # CI runs as root with setup.sh's tools: never skipped silently
    script = 'ip link set lo up && exec "$0" "$@"'
    command = ["unshare", "--net", "sh", "-c", script, sys.executable, str(SCENARIO), name]
    command.append(json.dumps(args))
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    done = subprocess.run(
        command, capture_output=True, timeout=SCENARIO_TIMEOUT, env=env, check=False
    )
    stdout = done.stdout.decode(errors="replace")
    stderr = done.stderr.decode(errors="replace")
    assert done.returncode == 0, f"scenario {name} failed:\n{stderr[-4000:]}"
    return dict(json.loads(stdout.strip().splitlines()[-1]))


def once_each(records: list[dict[str, Any]], urls: list[str]) -> None:
    """Every URL has exactly one record, and it is ok."""
    counts = collections.Counter(record["url"] for record in records)
    twice = {url: n for url, n in counts.items() if n > 1}
    assert not twice, f"recorded more than once: {twice}"
    assert sorted(counts) == sorted(urls), "URLs lost or foreign"
    failed = [r for r in records if not r["ok"]]
    assert not failed, f"failed records: {failed[:3]}"


def test_auto_starts_a_local_ray_and_shuts_it_down() -> None:
    out = run_scenario("local", pages=6)
    once_each(out["records"], out["urls"])
    assert out["status"] == {
        "nodes": 1,
        "actors": 1,
        "actors_started": 1,  # one browser_slots on a local Ray
        "visits": 6,
        "lost": 0,
    }
    assert out["most_nodes"] == 1
    assert not out["still_initialized"]


@pytest.mark.slow  # about a minute under load
def test_a_node_killed_mid_run_loses_no_url_and_records_none_twice() -> None:
    concurrency = 3
    out = run_scenario("kill", nodes=3, pages=100, kill_after=20, concurrency=concurrency)
    assert out["removed"]
    # Killed while every page slot of the three actors was waiting on the server:
    # its actor certainly had `concurrency` pages in flight.
    assert out["held_at_kill"] == [3 * concurrency]
    assert out["most_nodes"] == 3  # the three nodes were all used
    once_each(out["records"], out["urls"])
    status = out["status"]
    assert status["nodes"] == 2  # the killed node's actor is not counted alive
    # Its pages in flight were loaded again elsewhere, and not charged to retries:
    assert status["lost"] >= concurrency
    reloaded = [path for path, n in out["requested"].items() if n > 1]
    assert len(reloaded) >= concurrency, "the killed node's pages were not requested again"
    by_url = {record["url"]: record for record in out["records"]}
    for record in by_url.values():
        assert record["title"] == "Page " + record["url"].rsplit("/", 1)[1]
    again = [r for r in out["records"] if r["attempts"] > 1]
    assert again and all(r["ok"] for r in again)
    # Each message pair is one load: no URL was sent more than its lost attempts + 1.
    assert status["visits"] == len(out["urls"]) + status["lost"]


@pytest.mark.slow  # about a minute under load
def test_per_host_holds_across_the_cluster() -> None:
    out = run_scenario("per_host", nodes=3, pages=24, concurrency=4, per_host=2)
    once_each(out["records"], out["urls"])
    assert out["most_nodes"] == 3
    # 12 tabs on three nodes, yet never more than 2 pages of one host at once:
    assert out["most_at_once"] == {"127.0.0.1": 2, "localhost": 2}


@pytest.mark.slow  # about a minute under load
def test_a_hung_actor_is_replaced_and_its_pages_loaded_elsewhere() -> None:
    concurrency = 3
    out = run_scenario(
        "hang", nodes=2, pages=40, freeze_after=8, concurrency=concurrency, deadline=8.0
    )
    assert out["frozen"]
    # Frozen while every page slot of both actors was waiting on the server:
    # it certainly had `concurrency` pages in flight.
    assert out["held_at_freeze"] == [2 * concurrency]
    once_each(out["records"], out["urls"])
    status = out["status"]
    assert status["lost"] >= concurrency  # its pages in flight went past the deadline
    # ... and were requested again elsewhere:
    reloaded = [path for path, n in out["requested"].items() if n > 1]
    assert len(reloaded) >= concurrency, "the frozen actor's pages were not requested again"
    # Each message pair is one load: no URL was sent more than its lost attempts + 1.
    assert status["visits"] == len(out["urls"]) + status["lost"]
    assert status["actors_started"] >= 3  # the two first, then a replacement
    assert out["later"]["actors"] == 2  # which comes up (maybe after the last page)
    assert out["later"]["nodes"] == 2
    assert out["frozen"][0] not in out["actors_later"]  # killed, not left frozen
    late = [r for r in out["records"] if r["attempts"] > 1]
    assert late and all(r["ok"] for r in late)


@pytest.mark.slow  # about a minute under load
def test_cli_interrupted_then_resumed_has_every_url_once(tmp_path: Path) -> None:
    out = run_scenario("cli", nodes=2, pages=40, stop_after=8, dir=str(tmp_path))
    assert out["first_code"] == 130, out["first_stderr"]
    assert out["lines_at_stop"] >= 8
    assert out["lines_after_stop"] < len(out["urls"]), "the first run was not interrupted"
    assert out["second_code"] == 0, out["second_stderr"]
    assert "already in" in out["second_stderr"]
    once_each(out["records"], out["urls"])
