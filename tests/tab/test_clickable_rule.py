"""The clickable rule of kobrowser/_tab/_clickable.py against its plain statement.

The module reads only the candidates (listeners and pointer nodes) and the
``styles`` array as one array of ints: :func:`_reference` below is the rule
written node by node, as the module wrote it before. Both must give the same
map, in the same order, for every well-formed answer, and the same for any
answer both read; the fast read of ``styles`` must give what reading it
entry by entry gives.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from _clickable_answers import answer, tree_answer
from _examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kobrowser._tab import _clickable

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


class _Layout(msgspec.Struct):
    nodeIndex: list[int] = []
    styles: list[list[int]] = []


class _Document(msgspec.Struct):
    nodes: _clickable._Nodes
    layout: _Layout


class _Captured(msgspec.Struct):
    documents: list[_Document]
    strings: list[str]


def _reference(raw: bytes) -> dict[int, int]:
    """The clickable map, node by node (see the module's docstring for the rule)."""
    captured = msgspec.json.decode(raw, type=_Captured)
    strings = captured.strings
    pointer = strings.index("pointer") if "pointer" in strings else -2
    never = {i for i, s in enumerate(strings) if s in ("HTML", "BODY")}
    found: dict[int, int] = {}
    for document in captured.documents:
        nodes = document.nodes
        parents, types, names = nodes.parentIndex, nodes.nodeType, nodes.nodeName
        backends = nodes.backendNodeId
        count = len(backends)
        if not count:
            continue
        listeners = set(nodes.isClickable.index) if nodes.isClickable is not None else set()
        cursor = [-1] * count
        for at, styles in zip(document.layout.nodeIndex, document.layout.styles, strict=False):
            if styles and at < count:
                cursor[at] = styles[0]
        effective = [-1] * count
        owner = [-1] * count
        texts: dict[int, list[int]] = {}
        for i in range(count):
            parent = parents[i]
            inherited = effective[parent] if 0 <= parent < i else -1
            own = cursor[i]
            effective[i] = own if own != -1 else inherited
            up = owner[parent] if 0 <= parent < i else -1
            if types[i] == 1:
                if names[i] not in never and (
                    i in listeners or (own == pointer and inherited != pointer)
                ):
                    found[backends[i]] = backends[i]
                    owner[i] = i
                else:
                    owner[i] = up
            elif types[i] == 3 and up != -1:
                texts.setdefault(up, []).append(i)
            else:
                owner[i] = up
        for element, members in texts.items():
            if len(members) <= _clickable.MAX_TEXT_NODES:
                for i in members:
                    found[backends[i]] = backends[element]
    return found


@settings(SETTINGS, max_examples=examples(500))
@given(tree_answer)
def test_the_map_is_the_rule_node_by_node(result: dict[str, Any]) -> None:
    raw = msgspec.json.encode(result)
    expected = list(_reference(raw).items())
    assert list(_clickable.clickable_from_snapshot(raw).items()) == expected
    index = _clickable.clickable_index(raw)
    if index is not None:
        assert list(index.found.items()) == expected


@settings(SETTINGS, max_examples=examples(500))
@given(answer)
def test_any_answer_both_read_maps_the_same(result: dict[str, Any]) -> None:
    raw = msgspec.json.encode(result)
    try:
        expected = _reference(raw)
    except (IndexError, ValueError, msgspec.ValidationError):
        return  # malformed: the module may refuse it or read it
    try:
        found = _clickable.clickable_from_snapshot(raw)
    except (IndexError, ValueError, msgspec.ValidationError):
        return
    layout_indexes = [doc["layout"].get("nodeIndex", []) for doc in result["documents"]]
    if all(i >= 0 for indexes in layout_indexes for i in indexes):
        # (a negative layout index counted from the end in the reference;
        # the module leaves it out)
        assert list(found.items()) == list(expected.items())


styles = st.lists(st.lists(st.integers(-1, 300), max_size=3), max_size=12)


@settings(SETTINGS, max_examples=examples(500))
@given(styles, st.sampled_from([b",", b", "]), st.booleans())
def test_styles_read_as_one_array_are_read_right(
    entries: list[list[int]], comma: bytes, spaced: bool
) -> None:
    text = msgspec.json.encode(entries)
    if spaced:
        text = text.replace(b",", comma).replace(b"[]", b"[ ]")
    assert _clickable._cursors(msgspec.Raw(text)) == [e[0] if e else -1 for e in entries]


@pytest.mark.parametrize(
    "text",
    [b'[["x"]]', b"[[1.5]]", b"[[[1]]]", b"[1]", b'[["[]"]]', b"[[1],2]"],
)
def test_styles_of_another_shape_are_refused(text: bytes) -> None:
    with pytest.raises(msgspec.ValidationError):
        _clickable._cursors(msgspec.Raw(text))
