"""The clickable map's captureSnapshot answers as the codec projects them
(``to_json(data, {id: projection})`` with ``CAPTURE_KEEP``, kobrowser/_tab/_clickable.py).

A projected answer keeps, in each document, only what the clickable map's
structs read; decoded with them it must equal the whole answer, and so must
the map itself (hypothesis-generated captureSnapshot-shaped answers, with
Chrome's UTF-16 strings and fractional bounds).
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from _clickable_answers import answer
from _examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kobrowser._tab import _clickable
from kobrowser.cdp import Keep, cbor_codec
from kobrowser.snapshot._ax import FLAT_AX_KEEP

from ._cbor_ref import chrome_encode

codec = cbor_codec()
pytestmark = pytest.mark.skipif(codec is None, reason="kobrowser.cdp._cbor is not built")
CAPTURE = _clickable.CAPTURE_KEEP.compiled
SPEC = _clickable.CAPTURE_KEEP.spec
DOCUMENT_KEYS = set(SPEC["documents"]["$each"])
SECTION_KEYS = {"nodes": set(SPEC["documents"]["$each"]["nodes"])} | {
    "layout": set(SPEC["documents"]["$each"]["layout"])
}


def _message(call_id: int, result: dict[str, Any], utf16: bool) -> bytes:
    return chrome_encode({"id": call_id, "result": result, "sessionId": "S9"}, utf16=utf16)


def _map(raw: bytes) -> Any:
    try:
        return _clickable.clickable_from_snapshot(raw)
    except (IndexError, ValueError, msgspec.ValidationError) as exc:  # malformed: same failure
        return type(exc)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answer, st.booleans())
def test_a_lean_answer_decodes_to_the_same_clickable_map(
    result: dict[str, Any], utf16: bool
) -> None:
    data = _message(7, result, utf16)
    whole = json.loads(codec.to_json(data))
    keeps = {7: CAPTURE, 9: CAPTURE}
    lean = json.loads(codec.to_json(data, keeps))  # valid JSON, whatever was left out
    assert keeps == {9: CAPTURE}  # the answered id is taken out
    assert lean["id"] == 7 and lean["sessionId"] == "S9"
    assert lean["result"]["strings"] == whole["result"]["strings"]
    for doc in lean["result"]["documents"]:
        assert set(doc) <= DOCUMENT_KEYS
        for name, section in doc.items():
            assert set(section) <= SECTION_KEYS[name]
    lean_raw = msgspec.json.encode(lean["result"])
    whole_raw = msgspec.json.encode(whole["result"])
    decode = _clickable._DECODER.decode
    try:
        expected = decode(whole_raw)
    except msgspec.ValidationError:
        with pytest.raises(msgspec.ValidationError):
            decode(lean_raw)
    else:
        assert decode(lean_raw) == expected
    assert _map(lean_raw) == _map(whole_raw)


def test_the_kept_keys_are_the_ones_the_clickable_structs_read() -> None:
    # A field added to the structs and not kept would be silently missing on
    # the CBOR pipe (the projection is made of the structs' fields).
    assert set(SPEC) == set(_clickable._Captured.__struct_fields__)
    assert set(_clickable._Document.__struct_fields__) == DOCUMENT_KEYS
    assert {
        "nodes": set(_clickable._Nodes.__struct_fields__),
        "layout": set(_clickable._Layout.__struct_fields__),
    } == SECTION_KEYS


def test_a_lean_clickable_answer_leaves_out_exactly_the_unread_keys() -> None:
    result = {
        "documents": [
            {
                "documentURL": 0,
                "nodes": {
                    "parentIndex": [-1, 0],
                    "nodeType": [9, 1],
                    "nodeName": [1, 2],
                    "nodeValue": [-1, -1],
                    "backendNodeId": [1, 5],
                    "attributes": [[], [3, 4]],
                    "isClickable": {"index": [1]},
                },
                "layout": {"nodeIndex": [1], "styles": [[0]], "bounds": [[0.5, 1.25, 10.0, 2.75]]},
                "textBoxes": {"layoutIndex": [], "bounds": [], "start": [], "length": []},
            }
        ],
        "strings": ["pointer", "#document", "BUTTON", "id", "b"],
    }
    data = _message(4, result, False)
    assert codec.to_json(data, {4: CAPTURE}) == (
        b'{"id":4,"result":{"documents":[{"nodes":{"parentIndex":[-1,0],"nodeType":[9,1],'
        b'"nodeName":[1,2],"backendNodeId":[1,5],"isClickable":{"index":[1]}},'
        b'"layout":{"nodeIndex":[1],"styles":[[0]]}}],'
        b'"strings":["pointer","#document","BUTTON","id","b"]},"sessionId":"S9"}'
    )
    whole = codec.to_json(data)
    assert b'"bounds"' in whole and b'"textBoxes"' in whole
    # Another id, an empty dict or None: whole.
    assert (
        codec.to_json(data, {5: CAPTURE})
        == codec.to_json(data, {})
        == codec.to_json(data, None)
        == codec.to_json(data)
        == whole
    )


def test_lean_clickable_still_checks_the_input() -> None:
    result = {"documents": [{"nodes": {"parentIndex": [7]}}], "strings": []}
    data = _message(3, result, False)
    assert data.count(b"\x9f\x07\xff") == 1
    bad = data.replace(b"\x9f\x07\xff", b"\x9f\xc1\xff")  # an unsupported tag, same length
    with pytest.raises(codec.CBORError, match="tag 1") as info:
        codec.to_json(bad, {3: CAPTURE})
    assert info.value.call_id == 3
    with pytest.raises(TypeError):
        codec.to_json(data, [3])
    with pytest.raises(TypeError):
        codec.to_json(data, None, None)


@settings(max_examples=examples(2000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=200), st.integers(0, 3))
def test_random_bytes_with_projections_give_json_or_an_error(data: bytes, call_id: int) -> None:
    # A reply prefix keeps the fuzz inside a "result" with a projected call id.
    prefix = chrome_encode({"id": call_id})[:-1] + b"\x66result"
    flat = Keep(FLAT_AX_KEEP).compiled
    for blob in (data, prefix + data):
        try:
            out = codec.to_json(blob, {0: flat, 1: flat, 2: CAPTURE, 3: CAPTURE})
        except codec.CBORError as exc:
            assert 0 <= exc.offset <= len(blob)
        else:
            json.loads(out)
