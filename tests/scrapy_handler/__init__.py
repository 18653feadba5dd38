"""Tests of kobrowser.scrapy (not named ``scrapy``: the tests directory is on sys.path)."""
