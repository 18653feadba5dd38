"""The Ray driver's bookkeeping on built data (no Ray, no browser).

How an attempt lost with its actor is counted, and how an actor's answer
becomes the job's state and the record.
"""

from __future__ import annotations

import msgspec

from kobrowser.scrape._attempt import MAX_LOST
from kobrowser.scrape._queue import Job
from kobrowser.scrape._ray import RayEngine
from kobrowser.scrape._ray_node import Visit
from kobrowser.scrape._result import ScrapeResult


def engine() -> RayEngine:
    return RayEngine("auto", {"pool": {}, "loader": {}}, concurrency=4, timeout=30.0)


def test_the_per_url_deadline_is_over_the_actors_own() -> None:
    # The actor gives up on a page after 3 timeouts + 10 s; the driver waits longer.
    assert engine().deadline > 3 * 30.0 + 10.0


def test_a_lost_attempt_goes_back_at_once_without_using_a_retry() -> None:
    driver = engine()
    job = Job("http://a.test/", "a.test")
    job.failures = 1
    for lost in range(1, MAX_LOST + 1):
        result, retry_in = driver._lost_attempt(job, "lost the browser actor 0")
        assert (result, retry_in) == (None, 0.0)
        assert job.lost == lost
        assert job.attempts == lost
        assert job.failures == 1  # retries untouched
    result, retry_in = driver._lost_attempt(job, "lost the browser actor 2")
    assert retry_in is None
    assert result is not None
    assert not result.ok
    assert result.attempts == MAX_LOST + 1
    assert (
        result.error
        == f"lost the browser actor 2 (lost {MAX_LOST + 1} times while loading this page)"
    )
    assert driver.status()["lost"] == MAX_LOST + 1


def test_an_answer_updates_the_job_and_the_record_gets_the_drivers_elapsed() -> None:
    driver = engine()
    job = Job("http://a.test/", "a.test")
    job.started = 0.0  # long ago on the driver's clock
    record = ScrapeResult(url=job.url, ok=True, title="A", attempts=3, elapsed=0.5)
    reply = msgspec.msgpack.encode(Visit(msgspec.json.encode(record), None, 3, 1, 1, "x"))
    result, retry_in = driver._answer(job, reply)
    assert retry_in is None
    assert result is not None
    assert (result.url, result.ok, result.title, result.attempts) == (job.url, True, "A", 3)
    assert result.elapsed > 1.0  # from the first attempt's start here, not the actor's
    assert (job.attempts, job.failures, job.lost, job.last_error) == (3, 1, 1, "x")


def test_an_answer_to_try_again_keeps_its_back_off() -> None:
    driver = engine()
    job = Job("http://a.test/", "a.test")
    reply = msgspec.msgpack.encode(Visit(None, 1.5, 1, 1, 0, "HTTP 503"))
    assert driver._answer(job, reply) == (None, 1.5)
    assert (job.attempts, job.failures, job.last_error) == (1, 1, "HTTP 503")
