"""Hypothesis example budgets of the property tests.

``scripts/test.sh --fast`` sets ``KOBROWSER_TEST_FAST=1``: each property test
then runs a fifth of its examples (at least 10), and tests without their own
``max_examples`` run under the ``fast`` profile (registered in conftest.py).
CI and a plain ``scripts/test.sh`` run the full budgets.
"""

from __future__ import annotations

import os

#: Never under CI (CI=true), whatever the environment says.
FAST = os.environ.get("KOBROWSER_TEST_FAST") == "1" and not os.environ.get("CI")


def examples(full: int) -> int:
    """The number of examples to run: ``full``, or a fifth of it (>= 10) with --fast."""
    return max(10, full // 5) if FAST else full
