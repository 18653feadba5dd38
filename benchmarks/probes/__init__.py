"""Probes: one question each, answered with printed figures, never recorded.

Unlike the benchmarks (``benchmarks/bench_*.py``, run and recorded in
``benchmarks/RESULTS.md`` by ``python -m benchmarks``), a probe is run by
hand, as ``python -m benchmarks.probes.NAME``, when a change needs a closer
look than a benchmark gives. docs/performance.md cites their figures.

``cpu``            a snapshot round's CPU per process kind (renderers, Chrome's
                   browser process, this Python process), from ``/proc``
``fresh_split``    one fresh snapshot against the pipe floor: wall time, Python CPU,
                   renderer CPU
``clickable``      what tells that an element is clickable, and what each source costs
``scrape``         scraping one page at a time, per phase, kobrowser against Playwright
``mirror_phases``  the phases of a mirrored snapshot, incremental against whole builds
``frame_mirror``   click, then snapshot, with the large table inside an iframe
"""
