"""Scrapy integration: a download handler that loads pages in Chrome tabs.

A face over the public API (``kobrowser.launch``, ``Browser.new_tab``,
``Tab.open``, ``Tab.evaluate``, ``Tab.snapshot``), in the style of
scrapy-playwright. Needs Scrapy >= 2.14 (``pip install 'ko-browser[scrapy]'``)
and its asyncio reactor::

    # settings.py
    DOWNLOAD_HANDLERS = {
        "http": "kobrowser.scrapy.DownloadHandler",
        "https": "kobrowser.scrapy.DownloadHandler",
    }
    TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"

    # the spider
    yield scrapy.Request(url, meta={"kobrowser": True})
    # response.text: the rendered HTML; response.meta["kobrowser_snapshot"]: the snapshot

* :class:`DownloadHandler` -- the handler, its settings and request meta.
* :class:`Config` -- its settings, checked (``DownloadHandler.config``).
"""

from __future__ import annotations

from kobrowser.scrapy._config import Config
from kobrowser.scrapy._handler import DownloadHandler

__all__ = ["Config", "DownloadHandler"]
