"""Tests of scrape(..., ray=...) (not named ``ray``: that would shadow the library)."""
