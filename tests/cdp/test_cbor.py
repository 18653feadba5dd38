"""The native CBOR codec (kobrowser.cdp._cbor), against cbor2 and Chrome's encoding."""

from __future__ import annotations

import importlib.util
import json
import math
import struct
from typing import Any

import cbor2
import msgspec
import pytest
from _examples import examples
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kobrowser.cdp import cbor_codec

from ._cbor_ref import Binary, chrome_encode, expected, oracle

codec = cbor_codec()
pytestmark = [
    pytest.mark.skipif(codec is None, reason="kobrowser.cdp._cbor is not built"),
    # A hang guard, not a speed check: 400 generated values take seconds alone
    # and can take minutes on a machine loaded many times over.
    pytest.mark.timeout(600),
]


def decode(data: bytes) -> Any:
    return msgspec.json.decode(codec.to_json(data))


# -- values that look like CDP messages ----------------------------------------

text = st.text(st.characters(exclude_categories=["Cs"]), max_size=40)
keys = st.one_of(st.sampled_from(["id", "method", "params", "nodeId", "name", "value"]), text)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**31), 2**31 - 1),
    st.integers(-(2**64), 2**64 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    text,
    st.binary(max_size=40).map(Binary),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=6), st.dictionaries(keys, inner, max_size=6)),
    max_leaves=40,
)


def _cbor2_dumps(value: Any) -> bytes:
    """Plain (definite-length, unenveloped) CBOR of ``value`` by cbor2."""

    def default(encoder: Any, obj: Any) -> None:  # pragma: no cover - only Binary
        raise TypeError(obj)

    def convert(v: Any) -> Any:
        if isinstance(v, Binary):
            return cbor2.CBORTag(22, bytes(v))
        if isinstance(v, list):
            return [convert(x) for x in v]
        if isinstance(v, dict):
            return {k: convert(x) for k, x in v.items()}
        return v

    return cbor2.dumps(convert(value), default=default)


def same(a: Any, b: Any) -> bool:
    """Equal as JSON values (5 == 5.0, like JSON numbers)."""
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return bool(a == b) and isinstance(a, bool) == isinstance(b, bool)


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values)
def test_plain_cbor_transcodes_to_what_cbor2_reads(value: Any) -> None:
    data = _cbor2_dumps(value)
    assert same(decode(data), oracle(data))
    assert same(decode(data), expected(value))


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values)
def test_chrome_enveloped_cbor_transcodes_to_what_cbor2_reads(value: Any) -> None:
    data = chrome_encode(value)
    want = oracle(data)
    assert same(decode(data), want)
    # Chrome's ints are int32; anything wider went as a double
    assert same(decode(data), expected(value, int32=True))


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values)
@example({"id": 1, "method": "X", "params": {"a": [1, 2**31, -(2**31) - 1, "日本😀", 0.5]}})
def test_encode_is_chromes_form(value: Any) -> None:
    data = codec.encode(value)
    assert data == chrome_encode(value, utf16=False)
    assert same(decode(data), expected(value, int32=True))


def test_encode_call_shape() -> None:
    data = codec.encode_call(7, "DOM.focus", {"nodeId": 3}, "S1")
    assert data == chrome_encode(
        {"id": 7, "method": "DOM.focus", "params": {"nodeId": 3}, "sessionId": "S1"}, utf16=False
    )
    assert decode(codec.encode_call(8, "Browser.getVersion", None, None)) == {
        "id": 8,
        "method": "Browser.getVersion",
    }
    assert decode(codec.encode_call(9, "A.b", {}, None)) == {"id": 9, "method": "A.b"}


def test_encode_unknown_objects_through_msgspec() -> None:
    class Point(msgspec.Struct):
        x: int
        y: float

    assert decode(codec.encode({"p": Point(1, 2.5), "raw": msgspec.Raw(b'{"a":[1]}')})) == {
        "p": {"x": 1, "y": 2.5},
        "raw": {"a": [1]},
    }
    with pytest.raises(TypeError):
        codec.encode({"s": {1, 2}} | {"o": object()})
    with pytest.raises(TypeError, match="keys must be str"):
        codec.encode({1: "x"})


def test_each_module_object_has_its_own_state() -> None:
    # Multi-phase initialisation: loading the extension again makes another
    # module object, with its own exception class and default hook.
    spec = importlib.util.spec_from_file_location(codec.__name__, codec.__file__)
    assert spec is not None and spec.loader is not None
    other = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(other)
    assert other is not codec and other.CBORError is not codec.CBORError
    other.set_default(lambda value: "other")

    class Thing:
        pass

    assert other.encode([Thing()]) == codec.encode(["other"])
    with pytest.raises(TypeError, match="Thing"):
        codec.encode([Thing()])  # kobrowser's hook (msgspec) does not know it
    with pytest.raises(other.CBORError) as info:
        other.to_json(b"")
    assert not isinstance(info.value, codec.CBORError)
    other.set_default(None)
    with pytest.raises(TypeError, match="cannot encode Thing as CDP CBOR"):
        other.encode(Thing())


# -- exact forms ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "json_text"),
    [
        (b"\x00", b"0"),
        (b"\x17", b"23"),
        (b"\x18\x18", b"24"),
        (b"\x1b\xff\xff\xff\xff\xff\xff\xff\xff", b"18446744073709551615"),
        (b"\x20", b"-1"),
        (b"\x3b\xff\xff\xff\xff\xff\xff\xff\xff", b"-18446744073709551616"),
        (b"\xf9\x3c\x00", b"1"),  # half 1.0 prints as an integer, as Chrome's JSON does
        (b"\xf9\x3e\x00", b"1.5"),
        (b"\xfa\x7f\x80\x00\x00", b"null"),  # infinity
        (b"\xfb" + struct.pack(">d", 0.1), b"0.1"),
        (b"\xfb" + struct.pack(">d", -0.0), b"-0"),
        (b"\xfb" + struct.pack(">d", 1e300), b"1e+300"),
        (b"\xf4\xf5\xf6"[:1], b"false"),
        (b"\xf7", b"null"),
        (b"\x62\x22\x5c", b'"\\"\\\\"'),
        (b"\x63\x0a\x01\x7f", b'"\\n\\u0001\x7f"'),
        (b"\xd6\x40", b'""'),
        (b"\xd6\x43abc", b'"YWJj"'),
        (b"\xd6\x44abcd", b'"YWJjZA=="'),
        (b"\xd6\x45abcde", b'"YWJjZGU="'),
        (b"\x44\x3d\xd8\x00\xde", '"\U0001f600"'.encode()),  # a surrogate pair
        (b"\x42\x00\xd8", '"\ufffd"'.encode()),  # a lone surrogate
        (b"\x44\xe5\x65\x2c\x67", '"日本"'.encode()),
        (b"\x9f\x01\x80\xff", b"[1,[]]"),
        (b"\xa1\x41\x00\x01"[:0] + b"\xa1\x42a\x00\x01", b'{"a":1}'),  # UTF-16 key
    ],
)
def test_exact_json(data: bytes, json_text: bytes) -> None:
    assert codec.to_json(data) == json_text


def test_to_json_reads_any_buffer() -> None:
    data = chrome_encode({"a": [1, "x"]})
    assert codec.to_json(bytearray(data)) == codec.to_json(memoryview(data)) == b'{"a":[1,"x"]}'


# -- bad input --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "offset", "words"),
    [
        (b"", 0, "empty"),
        (b"\x19\x01", 0, "truncated"),
        (b"\x63ab", 0, "truncated"),
        (b"\x9f\x01", 0, "truncated"),
        (b"\x82\x01", 0, "truncated"),
        (b"\x5b\xff\xff\xff\xff\xff\xff\xff\xff", 0, "oversized"),
        (b"\x7b\x00\x00\x00\x01\x00\x00\x00\x00", 0, "truncated"),
        (b"\xff", 0, "unexpected break"),
        (b"\x1c", 0, "reserved"),
        (b"\x5f\xff", 0, "indefinite-length byte string"),
        (b"\x81\x62\xc3\x28", 1, "invalid UTF-8"),
        (b"\x81\x43abc", 1, "odd length"),
        (b"\xa1\x01\x02", 1, "not a string"),
        (b"\xc1\x00", 0, "tag 1"),
        (b"\xd6\x61a", 1, "not on a byte string"),
        (b"\xf0", 0, "simple value"),
        (b"\x01\x02", 1, "after the message"),
        (b"\xd8\x18\x43\x01\x02\x03", 4, "after the item of the envelope"),
        (b"\xd8\x18\x5a\x00\x00\x00\x09\xbf\xff", 2, "truncated"),
    ],
)
def test_bad_input_names_the_offset(data: bytes, offset: int, words: str) -> None:
    with pytest.raises(codec.CBORError, match=words) as info:
        codec.to_json(data)
    assert info.value.offset == offset
    assert f"byte offset {offset}" in str(info.value)


def test_nesting_is_bounded() -> None:
    assert codec.to_json(b"\x81" * 999 + b"\x00").startswith(b"[[[")
    with pytest.raises(codec.CBORError, match="nested deeper than 1000"):
        codec.to_json(b"\x81" * 5000 + b"\x00")
    deep: Any = []
    for _ in range(1100):
        deep = [deep]
    with pytest.raises(ValueError, match="too deeply"):
        codec.encode(deep)


def test_a_bad_reply_names_its_call_id() -> None:
    good = chrome_encode({"id": 41, "result": {"a": "b"}})
    bad = good.replace(b"\x61b", b"\x62\xc3\x28"[:2] + b"\xff")  # invalid UTF-8 in the result
    with pytest.raises(codec.CBORError) as info:
        codec.to_json(bad)
    assert info.value.call_id == 41
    with pytest.raises(codec.CBORError) as info:
        codec.to_json(b"\xbf\x63abc\x01\xff\xff")
    assert info.value.call_id is None


@settings(max_examples=examples(3000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=200))
def test_random_bytes_give_json_or_an_error(data: bytes) -> None:
    try:
        out = codec.to_json(data)
    except codec.CBORError as exc:
        assert 0 <= exc.offset <= len(data)
    else:
        json.loads(out)  # whatever was accepted is valid JSON


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values)
def test_every_truncation_is_an_error(value: Any) -> None:
    data = chrome_encode({"id": 1, "result": value})
    for end in range(len(data)):
        with pytest.raises(codec.CBORError) as info:
            codec.to_json(data[:end])
        assert 0 <= info.value.offset <= end


def test_a_transcoded_big_reply_takes_the_fast_path() -> None:
    # Chrome's key order (id, result, sessionId) survives the transcode, so a
    # large reply is sliced by split_reply instead of the envelope decoder.
    from kobrowser.cdp._wire import BIG_REPLY, split_reply

    result = {"nodes": [{"nodeId": str(i), "name": {"value": "名前 😀"}} for i in range(20000)]}
    data = codec.to_json(chrome_encode({"id": 12, "result": result, "sessionId": "A1B2C3"}))
    assert len(data) >= BIG_REPLY
    reply = split_reply(data)
    assert reply is not None
    assert reply[0] == 12
    assert msgspec.json.decode(reply[1]) == result
