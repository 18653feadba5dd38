"""captureSnapshot-shaped answers for the codec's clickable tests (hypothesis strategies).

``answer``: any shape the clickable map's structs may meet, malformed ones
included (node arrays of other lengths, parents after their children,
indexes past the end), with the keys Chrome sends that the map never reads.
``tree_answer``: well-formed documents (parents before children, arrays of
one length, layout indexes in range), with pointer areas, listeners, the
never-clickable ``HTML`` and ``BODY``, and elements near and past
``MAX_TEXT_NODES`` text nodes, so that most examples make a real map.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from kobrowser._tab._clickable import MAX_TEXT_NODES

__all__ = ["answer", "tree_answer"]

small = st.integers(-1, 12)
ints = st.lists(small, max_size=6)
text = st.text(st.characters(exclude_categories=["Cs"]), max_size=8)
rare = st.fixed_dictionaries({"index": ints}, optional={"value": ints})
rect = st.lists(st.floats(-1e4, 1e4, allow_nan=False), min_size=4, max_size=4)
nodes = st.fixed_dictionaries(
    {},
    optional={
        "parentIndex": ints,
        "nodeType": st.lists(st.sampled_from([1, 3, 9, 11]), max_size=6),
        "nodeName": ints,
        "nodeValue": ints,
        "backendNodeId": st.lists(st.integers(1, 2**31 - 1), max_size=6),
        "attributes": st.lists(ints, max_size=3),
        "textValue": rare,
        "inputValue": rare,
        "isClickable": rare,
        "shadowRootType": rare,
        "contentDocumentIndex": rare,
        "currentSourceURL": rare,
    },
)
layout = st.fixed_dictionaries(
    {},
    optional={
        "nodeIndex": ints,
        "styles": st.lists(ints, max_size=4),
        "bounds": st.lists(rect, max_size=4),
        "text": ints,
        "stackingContexts": rare,
        "offsetRects": st.lists(rect, max_size=2),
    },
)
document = st.fixed_dictionaries(
    {"nodes": nodes, "layout": layout},
    optional={
        "documentURL": small,
        "title": small,
        "frameId": small,
        "textBoxes": st.fixed_dictionaries(
            {"layoutIndex": ints, "bounds": st.lists(rect, max_size=3), "start": ints}
        ),
        "scrollOffsetX": st.floats(0, 1e4),
        "contentWidth": st.floats(0, 1e4),
    },
)
answer = st.fixed_dictionaries(
    {
        "documents": st.lists(document, max_size=3),
        "strings": st.lists(st.one_of(text, st.sampled_from(["pointer", "BODY", "HTML"]))),
    }
)

STRINGS = ["pointer", "HTML", "BODY", "DIV", "#text", "auto", "SPAN", "指 ポインタ"]


@st.composite
def _tree_document(draw: Any, strings: int) -> dict[str, Any]:
    count = draw(st.integers(0, MAX_TEXT_NODES + 12))
    parents: list[int] = []
    types: list[int] = []
    names: list[int] = []
    for i in range(count):
        # Mostly shallow: many text nodes under few elements reach the text limit.
        parent = -1 if i == 0 else draw(st.integers(max(0, i - 3), i - 1) | st.integers(0, i - 1))
        parents.append(parent)
        types.append(9 if i == 0 else draw(st.sampled_from([1, 1, 3, 3, 3, 8])))
        names.append(draw(st.integers(0, strings - 1)))
    backends = draw(st.lists(st.integers(1, 10_000), min_size=count, max_size=count, unique=True))
    boxes = sorted(draw(st.sets(st.integers(0, count - 1), max_size=count))) if count else []
    styles = [draw(st.lists(st.integers(0, strings - 1), max_size=1)) for _ in boxes]
    listeners = sorted(draw(st.sets(st.integers(0, count - 1), max_size=4))) if count else []
    return {
        "documentURL": 0,
        "nodes": {
            "parentIndex": parents,
            "nodeType": types,
            "nodeName": names,
            "backendNodeId": backends,
            "isClickable": {"index": listeners},
        },
        "layout": {
            "nodeIndex": boxes,
            "styles": styles,
            "bounds": [[0.5, 1.0, 2.0, 3.25]] * len(boxes),
        },
    }


tree_answer = st.permutations(STRINGS).flatmap(
    lambda strings: st.fixed_dictionaries(
        {
            "documents": st.lists(_tree_document(len(strings)), max_size=3),
            "strings": st.just(list(strings)),
        }
    )
)
