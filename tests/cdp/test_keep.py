"""Projections (kobrowser.cdp.Keep): the spec checks, and the codec applying them.

The codec's projected JSON of a result must be what ``tests/cdp/_keep_ref.py``
makes of the whole result, or both refuse it, for specs using every option
and values mostly of the spec's shape (hypothesis: members in any order,
missing or extra, values of other kinds, null anywhere, UTF-16 strings).
"""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec
import pytest
from _examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kobrowser import InvalidArgumentError
from kobrowser._tab._clickable import CAPTURE_KEEP
from kobrowser.cdp import Keep, cbor_codec
from kobrowser.cdp._keep import _shape
from kobrowser.snapshot._ax import FLAT_AX_KEEP

from ._cbor_ref import chrome_encode
from ._keep_ref import Refused, project

codec = cbor_codec()
pytestmark = pytest.mark.skipif(codec is None, reason="kobrowser.cdp._cbor is not built")

SPECS: dict[str, dict[str, Any]] = {
    "map and rename": {"a": None, "b": {"c": None, "v": None}, "$rename": {"a": "A"}},
    "unwrap and pick": {
        "a": {"$unwrap": "value"},
        "b": {
            "$each": {"$pick": ["name", "value"], "value": {"$unwrap": "value"}},
            "$only": ["name", ["x", "y", "é"]],
        },
    },
    "cases": {
        "n": {
            "$each": {"k": None, "r": None, "c": None, "v": {"$unwrap": "value"}},
            "$when": [
                {"match": [["k", False], ["r", "box"]], "drop": True, "from": 1},
                {"match": [["k", False], ["r", "text"]], "omit": ["c", "v"]},
                {"match": [["v", 3]], "drop": True},
            ],
        }
    },
    "only on maps": {
        "n": {"$each": {"name": None, "v": {"$each": None}}, "$only": ["name", ["x"]]}
    },
    "arrays of arrays": {"a": {"$each": {"$each": {"$unwrap": "value"}}}},
    "flat AX tree": FLAT_AX_KEEP,
    "clickable capture": dict(CAPTURE_KEEP.spec),
}

LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.integers(-(2**31), 2**31 - 1),
    st.floats(-1e6, 1e6, allow_nan=False),
    st.sampled_from(["x", "y", "é", "box", "text", "", "日本 😀", "focused", "InlineTextBox"]),
    st.text(max_size=6),
)
KEYS = ["a", "b", "c", "k", "n", "r", "v", "name", "value", "nodes", "x"]
anything = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)
    ),
    max_leaves=6,
)


@st.composite
def values_for(draw: st.DrawFn, spec: Any, depth: int = 0) -> Any:
    """A value mostly of ``spec``'s shape: members in any order, some missing,
    some extra, and now and then a value of another kind."""
    if spec is None or depth > 6 or draw(st.integers(0, 4)) == 0:
        return draw(anything)
    if "$each" in spec:
        count = draw(st.integers(0, 4))
        return [draw(values_for(spec["$each"], depth + 1)) for _ in range(count)]
    members = {key: value for key, value in spec.items() if not key.startswith("$")}
    for name in [*spec.get("$pick", ()), spec.get("$unwrap")]:
        if name is not None:
            members.setdefault(name, None)
    keys = draw(
        st.lists(
            st.sampled_from(sorted(set(members) | set(KEYS))),
            unique=True,
            max_size=len(members) + 2,
        )
    )
    return {key: draw(values_for(members.get(key), depth + 1)) for key in keys}


def _transcode(spec: dict[str, Any], value: Any, utf16: bool) -> Any:
    data = chrome_encode({"id": 7, "result": value, "sessionId": "S"}, utf16=utf16)
    keeps = {7: Keep(spec).compiled}
    try:
        out = json.loads(codec.to_json(data, keeps))
    except codec.CBORError as exc:
        assert exc.call_id == 7 and 0 < exc.offset < len(data)
        assert keeps == {}
        assert "unexpected answer: result" in str(exc)
        return Refused
    assert keeps == {}
    assert out["id"] == 7 and out["sessionId"] == "S"
    return out["result"]


def _expected(spec: dict[str, Any], value: Any) -> Any:
    whole = json.loads(codec.to_json(chrome_encode({"result": value})))["result"]
    try:
        return project(spec, whole)
    except Refused:
        return Refused


@pytest.mark.parametrize("name", list(SPECS))
def test_the_codec_keeps_what_the_spec_says(name: str) -> None:
    spec = SPECS[name]

    @settings(max_examples=examples(300), deadline=None, suppress_health_check=list(HealthCheck))
    @given(values_for(spec), st.booleans())
    def check(value: Any, utf16: bool) -> None:
        assert _transcode(spec, value, utf16) == _expected(spec, value)

    check()


def test_a_projection_by_example() -> None:
    spec = SPECS["cases"]
    nodes = [
        {"k": False, "r": "box", "c": 1},  # the first: a drop case from 1 leaves it
        {"k": False, "r": "box", "c": 2},  # dropped
        {"r": "box", "k": False},  # matched out of order: kept
        {"k": False, "r": "text", "c": 3, "v": {"value": 4}},  # c and v omitted
        {"c": 5, "k": False, "r": "text"},  # c came before the match: kept
        {"k": True, "r": "box", "v": {"type": "x", "value": 6, "more": [1]}},
        {"v": {"value": 3}, "c": "gone"},  # dropped by the third case
        None,
    ]
    assert _transcode(spec, {"n": nodes, "other": 1}, True) == {
        "n": [
            {"k": False, "r": "box", "c": 1},
            {"r": "box", "k": False},
            {"k": False, "r": "text"},
            {"c": 5, "k": False, "r": "text"},
            {"k": True, "r": "box", "v": 6},
            None,
        ]
    }


def test_a_key_sent_as_utf16_is_matched() -> None:
    # {"id": 1, "result": {"a": 1, "b": 2}} with "a" as a UTF-16 byte string
    data = b"\xbf\x62id\x01\x66result\xa2\x42a\x00\x01\x61b\x02\xff"
    assert codec.to_json(data) == b'{"id":1,"result":{"a":1,"b":2}}'
    assert codec.to_json(data, {1: Keep({"a": None}).compiled}) == b'{"id":1,"result":{"a":1}}'


def test_null_stays_null_whatever_the_spec() -> None:
    for spec in SPECS.values():
        assert _transcode(spec, None, False) is None


@pytest.mark.parametrize(
    ("spec", "value", "words"),
    [
        ({"a": None}, [1], "result is not a map"),
        ({"a": {"$each": None}}, {"a": {}}, "result.a is not an array"),
        ({"a": {"$unwrap": "value"}}, {"a": "x"}, "result.a is not a map"),
        ({"a": {"$pick": ["p", "q"]}}, {"a": {"p": 1}}, "result.a has no q"),
        (
            {"a": {"$each": {"n": None}, "$only": ["n", ["x"]]}},
            {"a": [{"m": 1}]},
            "result.a[] has no n",
        ),
        (
            {"a": {"$each": {"n": None}, "$only": ["n", ["x"]]}},
            {"a": [{"n": 1}]},
            "result.a[].n is not a string",
        ),
    ],
)
def test_another_shape_fails_the_call_naming_where(spec: Any, value: Any, words: str) -> None:
    data = chrome_encode({"id": 3, "result": value})
    with pytest.raises(codec.CBORError, match=f"^unexpected answer: {re.escape(words)} at") as info:
        codec.to_json(data, {3: Keep(spec).compiled})
    assert info.value.call_id == 3


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ([], "a Keep spec is a dict"),
        ({}, "keeps 1 to 64 members"),
        ({"a": 1}, "a spec is None or a dict"),
        ({"$each": None, "a": None}, "has no members"),
        ({"$unwrap": "value", "x": None}, "has no members"),
        ({"$unwrap": 5}, "ASCII str"),
        ({"a": None, "$rename": {"b": "c"}}, "$rename must map kept members"),
        ({"a": None, "b": None, "$rename": {"a": "b"}}, "a str no other member has"),
        ({"a": None, "$bogus": 1}, "$bogus cannot go with a map spec"),
        ({"$each": None, "$rename": {}}, "cannot go with a each spec"),
        ({"é": None}, "ASCII str"),
        ({"$pick": ["a"], "b": None}, "are not picked"),
        ({"$pick": "ab"}, "$pick must be a list"),
        ({"$each": None, "$only": ["a", ["x"]]}, "$only needs map or $pick items"),
        ({"$each": {"a": None}, "$only": ["b", ["x"]]}, "'b' is not a kept member"),
        ({"$each": {"a": None}, "$only": ["a", [1]]}, "$only's values are strings"),
        ({"$each": {"$pick": ["a"]}, "$when": [{"match": [["a", 1]], "drop": True}]}, "$when"),
        ({"$each": {"a": None}, "$when": [{"match": [], "drop": True}]}, "list of [member, value]"),
        ({"$each": {"a": None}, "$when": [{"match": [["a", 1.5]], "drop": True}]}, "a str, an int"),
        ({"$each": {"a": None}, "$when": [{"match": [["a", 'x"']], "drop": True}]}, "quotes"),
        ({"$each": {"a": None}, "$when": [{"match": [["a", 1]]}]}, "either drops"),
        (
            {"$each": {"a": None}, "$when": [{"match": [["a", 1]], "omit": ["a"], "from": 1}]},
            "either",
        ),
        (
            {"$each": {"a": None}, "$when": [{"match": [["a", 1]], "drop": True, "from": -1}]},
            "from is",
        ),
        ({"$each": {"a": None}, "$when": [{"match": [["a", 1]], "drop": 1}]}, "True or False"),
    ],
)
def test_a_bad_spec_is_refused_saying_where(spec: Any, words: str) -> None:
    with pytest.raises(InvalidArgumentError, match=re.escape(words)):
        Keep(spec)


def test_the_spec_is_normalized_for_the_codec() -> None:
    shape = _shape({"a": None, "b": {"$unwrap": "v"}, "$rename": {"a": "A"}}, "result", 0)
    assert shape == (
        "map",
        "result",
        (
            ("a", b'"A":', None),
            ("b", b'"b":', ("unwrap", "result.b", (("v", b"", None),))),
        ),
    )
    assert repr(Keep({"a": None})) == "Keep({'a': None})"


@pytest.mark.parametrize(
    "shape",
    [
        ("map",),
        ("map", "p", ()),
        ("nope", "p", ()),
        ("map", "p", (("a", 1, None),)),
        ("each", "p", None, ((((0, b"1"),), True, 0, ()),), None),
        ("each", "p", ("map", "q", (("a", b'"a":', None),)), ((((5, b"1"),), True, 0, ()),), None),
        ("each", "p", None, (), (0, (b'"x"',))),
        ("unwrap", "p", (("a", b"", None), ("b", b"", None))),
    ],
)
def test_the_codec_refuses_a_malformed_shape(shape: Any) -> None:
    with pytest.raises(ValueError, match="compile:"):
        codec.compile(shape)


def test_a_kept_decoder_decodes_as_the_plain_one() -> None:
    keep = Keep({"a": None})
    decode = keep.decoder(msgspec.json.decode)
    assert decode.keep is keep and decode(msgspec.Raw(b'{"a": [1]}')) == {"a": [1]}
