"""The clickable map of a captureSnapshot answer the codec projected (``CAPTURE_KEEP``).

The codec knows no clickable rule: it only keeps, of Chrome's answer, the
arrays the map reads, and kobrowser/_tab/_clickable.py computes the map from
them. That map must be the one of Chrome's whole answer, entry for entry and
in the same order, for every answer the map is made of, and an answer the
Python code refuses must be refused projected too (CBORError naming the call
and an offset, or the same decoder error).
"""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec
import pytest
from _clickable_answers import answer, tree_answer
from _examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kobrowser._tab import _clickable
from kobrowser.cdp import cbor_codec

from ._cbor_ref import chrome_encode

codec = cbor_codec()
pytestmark = pytest.mark.skipif(codec is None, reason="kobrowser.cdp._cbor is not built")

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
CAPTURE = _clickable.CAPTURE_KEEP.compiled
REFUSED = (IndexError, ValueError, msgspec.ValidationError)


def _message(call_id: int, result: Any, utf16: bool) -> bytes:
    return chrome_encode({"id": call_id, "result": result, "sessionId": "S9"}, utf16=utf16)


def _python_map(whole: bytes) -> list[tuple[int, int]] | None:
    """kobrowser/_tab/_clickable.py's map of the whole answer (None: it refuses it)."""
    try:
        return list(_clickable.clickable_from_snapshot(whole).items())
    except REFUSED:
        return None


def _projected_map(data: bytes, call_id: int) -> list[tuple[int, int]] | None:
    """The map of the answer as the codec projects it (None: refused)."""
    keeps = {call_id: CAPTURE, 99: CAPTURE}
    try:
        out = json.loads(codec.to_json(data, keeps))
    except codec.CBORError as exc:
        assert exc.call_id == call_id
        assert 0 <= exc.offset <= len(data)
        assert list(keeps) == [99]  # taken out before reading failed
        return None
    assert list(keeps) == [99]  # the answered id is taken out, the others kept
    assert out["id"] == call_id and out["sessionId"] == "S9"
    return _python_map(msgspec.json.encode(out["result"]))


def _whole(data: bytes) -> bytes:
    return msgspec.json.encode(json.loads(codec.to_json(data))["result"])


@SETTINGS
@given(tree_answer, st.booleans())
def test_well_formed_answers_map_the_same_projected(result: dict[str, Any], utf16: bool) -> None:
    data = _message(5, result, utf16)
    expected = _python_map(_whole(data))
    assert expected is not None  # well formed: the Python code maps it
    assert _projected_map(data, 5) == expected


@settings(SETTINGS, max_examples=examples(400))
@given(answer, st.booleans())
def test_any_answer_maps_or_is_refused_the_same_projected(
    result: dict[str, Any], utf16: bool
) -> None:
    data = _message(5, result, utf16)
    assert _projected_map(data, 5) == _python_map(_whole(data))


def _tree(count: int, texts_under_first: int) -> dict[str, Any]:
    """A document: #document > HTML > BODY > a pointer DIV holding text nodes, then more."""
    parents = [-1, 0, 1, 2] + [3] * texts_under_first
    types = [9, 1, 1, 1] + [3] * texts_under_first
    while len(parents) < count:
        parents.append(2)
        types.append(1)
    return {
        "nodes": {
            "parentIndex": parents,
            "nodeType": types,
            "nodeName": [3, 1, 2, 4] + [5] * (len(parents) - 4),
            "backendNodeId": [100 + i for i in range(len(parents))],
            "isClickable": {"index": [1, 2]},  # listeners on HTML and BODY: never clickable
        },
        "layout": {"nodeIndex": [1, 2, 3], "styles": [[6], [6], [0]]},
    }


STRINGS = ["pointer", "HTML", "BODY", "#document", "DIV", "#text", "auto"]


def test_a_pointer_area_and_its_text_nodes_up_to_the_limit() -> None:
    limit = _clickable.MAX_TEXT_NODES
    assert not hasattr(codec, "CLICKABLE_MAX_TEXT_NODES")  # the rule is only in Python
    for texts, mapped in ((limit, True), (limit + 1, False)):
        data = _message(3, {"documents": [_tree(8, texts)], "strings": STRINGS}, False)
        found = _projected_map(data, 3)
        assert found == _python_map(_whole(data))
        assert found is not None and found[0] == (103, 103)  # the DIV; not HTML or BODY
        assert len(found) == (1 + texts if mapped else 1)


def test_no_pointer_string_and_empty_answers() -> None:
    for result in (
        {"documents": [], "strings": []},
        {"documents": [_tree(6, 2)], "strings": ["auto", "HTML", "BODY", "#document", "DIV"]},
        {"documents": [{"nodes": {}, "layout": {}}], "strings": ["pointer"]},
    ):
        data = _message(3, result, False)
        assert _projected_map(data, 3) == _python_map(_whole(data))
    empty = codec.to_json(_message(3, {"documents": [], "strings": []}, False), {3: CAPTURE})
    assert empty == b'{"id":3,"result":{"documents":[],"strings":[]},"sessionId":"S9"}'


@pytest.mark.parametrize(
    ("result", "words"),
    [
        ({"strings": []}, "missing required field `documents`"),
        ({"documents": []}, "missing required field `strings`"),
        ({"documents": [{"nodes": {}}], "strings": []}, "missing required field `layout`"),
        ({"documents": {}, "strings": []}, "unexpected answer: result.documents is not an array"),
        ({"documents": [], "strings": [1]}, "Expected `str`, got `int`"),
        (
            {"documents": [{"nodes": [], "layout": {}}], "strings": []},
            "unexpected answer: result.documents[].nodes is not a map",
        ),
        (
            {"documents": [{"nodes": {"backendNodeId": [1.5]}, "layout": {}}], "strings": []},
            "Expected `int`, got `float`",
        ),
        (
            {
                "documents": [
                    {"nodes": {"backendNodeId": [1, 2], "parentIndex": [-1]}, "layout": {}}
                ],
                "strings": [],
            },
            "differ in length",
        ),
        ([], "unexpected answer: result is not a map"),
    ],
)
def test_an_answer_of_another_shape_fails_its_call(result: Any, words: str) -> None:
    data = _message(4, result, False)
    try:
        out = codec.to_json(data, {4: CAPTURE})
    except codec.CBORError as exc:  # a shape the projection cannot apply to
        assert re.search(re.escape(words), str(exc))
        assert exc.call_id == 4
        assert 0 < exc.offset < len(data)
    else:
        with pytest.raises(REFUSED, match=re.escape(words)):
            _clickable.clickable_from_snapshot(msgspec.json.encode(json.loads(out)["result"]))
    assert _python_map(_whole(data)) is None  # the Python code refuses the whole one too


def test_another_id_or_no_projection_transcodes_the_answer_whole() -> None:
    data = _message(4, {"documents": [_tree(6, 2)], "strings": STRINGS}, True)
    whole = codec.to_json(data)
    assert codec.to_json(data, {5: CAPTURE}) == codec.to_json(data, None) == whole
    with pytest.raises(TypeError):
        codec.to_json(data, [4])


@settings(SETTINGS, max_examples=examples(300))
@given(tree_answer, st.data())
def test_truncated_or_corrupted_answers_fail_with_an_offset(
    result: dict[str, Any], data: st.DataObject
) -> None:
    message = _message(6, result, data.draw(st.booleans()))
    cut = data.draw(st.integers(0, len(message) - 1))
    with pytest.raises(codec.CBORError) as info:
        codec.to_json(message[:cut], {6: CAPTURE})
    assert 0 <= info.value.offset <= cut
    at = data.draw(st.integers(0, len(message) - 1))
    corrupted = bytearray(message)
    corrupted[at] ^= data.draw(st.integers(1, 255))
    try:
        out = codec.to_json(bytes(corrupted), {6: CAPTURE})
    except codec.CBORError as exc:
        assert 0 <= exc.offset <= len(corrupted)
    else:
        json.loads(out)


@settings(SETTINGS, max_examples=examples(2000))
@given(st.binary(max_size=200))
def test_random_bytes_in_a_projected_answer_give_json_or_an_error(data: bytes) -> None:
    prefix = chrome_encode({"id": 2})[:-1] + b"\x66result"
    for blob in (data, prefix + data):
        try:
            out = codec.to_json(blob, {2: CAPTURE})
        except codec.CBORError as exc:
            assert 0 <= exc.offset <= len(blob)
        else:
            json.loads(out)
