"""The pure parts of scraping: the per-host scheduler, URL checks, failure judging."""

from __future__ import annotations

import random

import anyio
import anyio.lowlevel
import pytest
from _examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from kobrowser.scrape._queue import Job, Scheduler
from kobrowser.scrape._result import check_url, host_key, navigation_failure


async def _drain(scheduler: Scheduler, workers: int, retry: dict[str, int]) -> list[str]:
    """Run ``workers`` fake workers; a URL in ``retry`` comes back that many times."""
    done: list[str] = []
    peak: dict[str, int] = {}
    active: dict[str, int] = {}

    async def worker() -> None:
        while (job := await scheduler.take()) is not None:
            active[job.host] = active.get(job.host, 0) + 1
            peak[job.host] = max(peak.get(job.host, 0), active[job.host])
            await anyio.lowlevel.checkpoint()
            active[job.host] -= 1
            if retry.get(job.url, 0) > job.attempts:
                job.attempts += 1
                scheduler.finish(job, retry_in=0)
            else:
                scheduler.finish(job)
                done.append(job.url)

    async with anyio.create_task_group() as tg:
        for _ in range(workers):
            tg.start_soon(worker)
    if scheduler.per_host is not None:
        assert max(peak.values(), default=0) <= scheduler.per_host
    return done


@pytest.mark.anyio
@settings(max_examples=examples(60), deadline=None)
@given(
    hosts=st.lists(st.sampled_from("abcd"), min_size=0, max_size=30),
    per_host=st.one_of(st.none(), st.integers(1, 3)),
    workers=st.integers(1, 6),
    retries=st.lists(st.integers(0, 2), min_size=30, max_size=30),
)
async def test_every_job_finishes_once_within_per_host(
    hosts: list[str], per_host: int | None, workers: int, retries: list[int]
) -> None:
    scheduler = Scheduler(per_host)
    urls = [f"http://{host}/{i}" for i, host in enumerate(hosts)]
    for url, host in zip(urls, hosts, strict=True):
        scheduler.add(Job(url, host))
    scheduler.input_done()
    done = await _drain(scheduler, workers, dict(zip(urls, retries, strict=False)))
    assert sorted(done) == sorted(urls)
    assert scheduler.queued == 0 and scheduler.running == 0


@pytest.mark.anyio
async def test_a_host_at_its_limit_does_not_hold_back_the_others() -> None:
    scheduler = Scheduler(per_host=1)
    for i in range(3):
        scheduler.add(Job(f"http://a/{i}", "a"))
    scheduler.add(Job("http://b/0", "b"))
    first = await scheduler.take()
    second = await scheduler.take()
    assert first is not None and second is not None
    assert (first.host, second.host) == ("a", "b")  # not a/1: a is at its limit
    with anyio.move_on_after(0.05) as scope:  # nothing else may start yet
        await scheduler.take()
    assert scope.cancelled_caught
    scheduler.finish(first)
    third = await scheduler.take()
    assert third is not None and third.url == "http://a/1"


@pytest.mark.anyio
async def test_a_retry_waits_out_its_back_off() -> None:
    scheduler = Scheduler(per_host=None)
    scheduler.add(Job("http://a/", "a"))
    scheduler.input_done()
    job = await scheduler.take()
    assert job is not None
    scheduler.finish(job, retry_in=3600)
    with anyio.move_on_after(0.05) as scope:
        await scheduler.take()
    assert scope.cancelled_caught and scheduler.queued == 1


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("", "malformed URL: empty"),
        ("http://exa mple.com/", "malformed URL: it contains whitespace or control characters"),
        ("example.com", "malformed URL: no scheme (write http:// or https://)"),
        ("http://", "malformed URL: no host"),
        ("http://[::1/", "malformed URL: Invalid IPv6 URL"),
        ("http://host:99999/", "malformed URL: Port out of range 0-65535"),
        ("ftp://host/x", "unsupported URL scheme 'ftp': use http, https, file, data or about"),
        ("https://example.com/a?b=c#d", None),
        ("HTTP://EXAMPLE.COM", None),
        ("file:///tmp/page.html", None),
        ("data:text/html,<p>hi</p>", None),
        ("about:blank", None),
    ],
)
def test_check_url(url: str, problem: str | None) -> None:
    assert check_url(url) == problem


def test_host_key() -> None:
    assert host_key("https://Example.COM:8443/x") == "example.com"
    assert host_key("file:///tmp/a.html") == "file"
    assert host_key("http://[::1]:80/") == "::1"


@pytest.mark.parametrize(
    ("message", "error", "retry"),
    [
        ("cannot open 'x': net::ERR_NAME_NOT_RESOLVED", "DNS lookup failed: no such host", False),
        ("cannot open 'x': net::ERR_NAME_RESOLUTION_FAILED", "DNS lookup failed: the", True),
        ("cannot open 'x': net::ERR_CONNECTION_REFUSED", "connection refused", True),
        ("cannot open 'x': net::ERR_CERT_DATE_INVALID", "navigation failed (ERR_CERT_", False),
        ("cannot open 'x': net::ERR_SOMETHING_NEW", "navigation failed (ERR_SOMETHING_NEW)", True),
        ("cannot open 'x': Cannot navigate to invalid URL", "malformed URL", False),
        ("cannot open 'x': net::ERR_ABORTED", "the load was aborted", False),
    ],
)
def test_navigation_failures_are_judged(message: str, error: str, retry: bool) -> None:
    failure = navigation_failure(message)
    assert failure.message.startswith(error) and failure.retry is retry
    assert not failure.retire and not failure.lost


def test_a_download_is_named() -> None:
    failure = navigation_failure("net::ERR_ABORTED", download="'a.zip' from http://h/a.zip")
    assert failure.message == "the URL is a download, not a page ('a.zip' from http://h/a.zip)"
    assert not failure.retry


def test_backoff_grows_and_is_capped() -> None:
    from kobrowser.scrape._pool import backoff

    random.seed(1)
    delays = [backoff(n, base=0.5, cap=4.0) for n in range(1, 8)]
    assert 0.375 <= delays[0] <= 0.625
    assert all(0.75 * 4.0 <= d <= 1.25 * 4.0 for d in delays[3:])
