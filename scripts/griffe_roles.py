"""A griffe extension for the API reference (mkdocs.yml): Sphinx roles as code.

kobrowser's docstrings are Google style, and name other objects the Sphinx
way (``:class:`Tab```, ``:meth:`~kobrowser.Tab.click```). Markdown has no such
roles, so before mkdocstrings renders a docstring this rewrites each role to a
code span of the name it shows (``Tab``, ``click``), and a paragraph's
closing ``::`` (reStructuredText's "a literal block follows") to ``:``.
Nothing else of a docstring changes.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:meth|class|func|mod|attr|data|exc|obj|const):`(~?)\.?([^`]+)`")
_LITERAL = re.compile(r"(?<=\S)::$", re.M)


def _shown(match: re.Match[str]) -> str:
    short, target = match.group(1), match.group(2)
    return f"`{target.rsplit('.', 1)[-1] if short else target}`"


def rewrite(text: str) -> str:
    """``text`` with its Sphinx roles as code spans and ``::`` as ``:``."""
    return _LITERAL.sub(":", _ROLE.sub(_shown, text))


class SphinxRoles(griffe.Extension):
    """Rewrites every loaded object's docstring with :func:`rewrite`."""

    def on_object(self, *, obj: griffe.Object, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = rewrite(obj.docstring.value)
