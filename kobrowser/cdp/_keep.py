"""What to keep of a call's answer: a projection, given per call as data (:class:`Keep`).

The spec is plain data, so that it can sit beside the structs that decode the
answer (even in a package that imports nothing of ``cdp``, as the snapshot's
AX spec does); this module checks it and has the codec compile it
(``compile()`` in ``_cbor.c``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import msgspec

from kobrowser._exceptions import InvalidArgumentError
from kobrowser.cdp._calls import Decode
from kobrowser.cdp._codec import cbor_codec

__all__ = ["Keep", "KeptDecode"]

_MAX_MEMBERS: Final = 64
_MAX_CASES: Final = 16
_MAX_DEPTH: Final = 64
_UNSAFE: Final = frozenset('"\\') | frozenset(map(chr, range(32)))
_OPTIONS: Final = {
    "each": frozenset({"$each", "$only", "$when"}),
    "unwrap": frozenset({"$unwrap"}),
    "pick": frozenset({"$pick"}),
    "map": frozenset({"$rename"}),
}


class Keep:
    """What to keep of a call's result: a projection, compiled once.

    A caller that reads only part of a large answer says which part with a
    Keep, built once from a spec and passed with the call
    (:meth:`CDPSession.send_raw`, or :meth:`decoder` for
    :meth:`Connection.call_many`). A transport that can apply it while it
    reads the answer (the CBOR pipe: its codec transcodes only the kept part
    and steps over the rest unread) hands over the projected JSON; the
    others (the WebSocket, the JSON pipe) hand over the whole answer. So the
    caller's decoder must read both and decode them to the same thing: keep
    what it reads, and tell the forms apart by a renamed member if they differ.

    The spec of a value (of the call's ``result`` at the top):

    * ``None``: the value as it is.
    * ``{"name": spec, ...}``: a map; only these members, each by its spec.
      ``"$rename": {"name": "other"}`` writes a member under another name.
    * ``{"$each": spec}``: an array; each item by ``spec``. Its items (maps)
      may be filtered:

      - ``"$only": ["name", ["a", "b"]]``: an item is kept only when its
        member ``name`` (which it must have, as a string) is one of these.
      - ``"$when": [case, ...]``: a case is ``{"match": [["name", value],
        ...], "drop": True}`` (leave the item out; ``"from": 1``: only from
        the second item on) or ``{"match": [...], "omit": ["name", ...]}``
        (leave out these members when they come after the match). An item
        matches when its members, as kept, equal the values in the order
        given: each is looked at once the ones before it matched (Chrome
        sends a map's keys in one order), and the first that differs ends
        the case for that item. A value is a string (without quotes,
        backslashes or control characters), an int, a bool or None.
    * ``{"$unwrap": "name"}``: a map written as its member ``name``'s value
      (null when it has none).
    * ``{"$pick": ["a", "b"], "b": spec}``: a map written as the array of
      these members' values, in this order, each by its spec (if given); it
      must have them all.

    ``null`` stays ``null`` whatever the spec says. A value of another kind
    than the spec says (a string where a map is expected ...) fails the call
    (:class:`~kobrowser.ProtocolError`, "unexpected answer: result.x is not
    a map"), as a decoder would refuse it. Member names are ASCII.

    Args:
        spec: what to keep of the result (a map's spec: a dict).

    Raises:
        InvalidArgumentError: the spec is not one this module describes
            (the message says where).

    Attributes:
        spec: the spec as given.
        compiled: the codec's compiled projection, None without the codec.
    """

    __slots__ = ("compiled", "spec")

    def __init__(self, spec: Mapping[str, Any]) -> None:
        if not isinstance(spec, Mapping):
            raise InvalidArgumentError(f"a Keep spec is a dict of members, not {spec!r}")
        self.spec = spec
        shape = _shape(spec, "result", 0)
        codec = cbor_codec()
        self.compiled: Any = codec.compile(shape) if codec is not None else None

    def decoder(self, decode: Decode) -> KeptDecode:
        """A :meth:`~kobrowser.cdp.Connection.call_many` decoder that asks for this projection."""
        return KeptDecode(self, decode)

    def __repr__(self) -> str:
        return f"Keep({self.spec!r})"


class KeptDecode:
    """A :meth:`~kobrowser.cdp.Connection.call_many` decoder whose call keeps only
    part of its answer (:meth:`Keep.decoder`): ``decode`` gets the projected
    JSON from a transport that applies ``keep``, the whole answer from others.
    """

    __slots__ = ("decode", "keep")

    def __init__(self, keep: Keep, decode: Decode) -> None:
        self.keep = keep
        self.decode = decode

    def __call__(self, raw: msgspec.Raw) -> Any:
        return self.decode(raw)


def _bad(path: str, what: str) -> InvalidArgumentError:
    return InvalidArgumentError(f"Keep spec at {path}: {what}")


def _names(value: Any, path: str, what: str) -> list[str]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise _bad(path, f"{what} must be a list of member names, not {value!r}")
    for name in value:
        _check_name(name, path)
    return list(value)


def _check_name(name: Any, path: str) -> None:
    if not isinstance(name, str) or not name or name.startswith("$") or not name.isascii():
        raise _bad(path, f"a member name must be an ASCII str not starting with $, not {name!r}")


def _json(value: Any, path: str) -> bytes:
    """The JSON the codec writes for a match value, exactly."""
    if isinstance(value, str):
        if _UNSAFE.intersection(value):
            raise _bad(
                path, f"a match string may not hold quotes, backslashes or controls: {value!r}"
            )
    elif not (value is None or isinstance(value, bool | int)):
        raise _bad(path, f"a match value is a str, an int, a bool or None, not {value!r}")
    return msgspec.json.encode(value)


def _kind(spec: Mapping[str, Any], path: str) -> str:
    options = {key for key in spec if isinstance(key, str) and key.startswith("$")}
    for kind in ("each", "unwrap", "pick"):
        if f"${kind}" in spec:
            break
    else:
        kind = "map"
    unknown = options - _OPTIONS[kind]
    if unknown:
        raise _bad(path, f"{', '.join(sorted(unknown))} cannot go with a {kind} spec")
    if kind in ("each", "unwrap") and len(spec) != len(options):
        raise _bad(path, f"a ${kind} spec has no members")
    return kind


def _shape(spec: Any, path: str, depth: int) -> Any:
    """The normalized shape ``compile()`` in ``_cbor.c`` reads (see there)."""
    if spec is None:
        return None
    if depth > _MAX_DEPTH:
        raise _bad(path, f"specs nested deeper than {_MAX_DEPTH}")
    if not isinstance(spec, Mapping):
        raise _bad(path, f"a spec is None or a dict, not {spec!r}")
    kind = _kind(spec, path)
    if kind == "unwrap":
        name = spec["$unwrap"]
        _check_name(name, path)
        return ("unwrap", path, ((name, b"", None),))
    if kind == "each":
        return _each(spec, path, depth)
    members = {
        key: value
        for key, value in spec.items()
        if not (isinstance(key, str) and key.startswith("$"))
    }
    if kind == "pick":
        order = _names(spec["$pick"], path, "$pick")
        extra = set(members) - set(order)
        if extra:
            raise _bad(path, f"members {sorted(extra)} are not picked")
        members = {name: members.get(name) for name in order}
        rename: Mapping[str, Any] = {}
    else:
        rename = spec.get("$rename", {})
        if not isinstance(rename, Mapping) or set(rename) - set(members):
            raise _bad(path, f"$rename must map kept members to names, not {rename!r}")
    if not 0 < len(members) <= _MAX_MEMBERS:
        raise _bad(path, f"a map spec keeps 1 to {_MAX_MEMBERS} members")
    normalized = []
    names: set[str] = set()
    for name, member in members.items():
        _check_name(name, path)
        written = rename.get(name, name)
        if not isinstance(written, str) or not written or written in names:
            raise _bad(path, f"$rename's name for {name!r} must be a str no other member has")
        names.add(written)
        key = msgspec.json.encode(written) + b":"
        normalized.append((name, key, _shape(member, f"{path}.{name}", depth + 1)))
    return (kind, path, tuple(normalized))


def _each(spec: Mapping[str, Any], path: str, depth: int) -> Any:
    item_path = f"{path}[]"
    item = _shape(spec["$each"], item_path, depth + 1)
    cases = spec.get("$when", ())
    only = spec.get("$only")
    if not cases and only is None:
        return ("each", path, item, (), None)
    if item is None or item[0] not in ("map", "pick") or (cases and item[0] != "map"):
        raise _bad(path, "$only needs map or $pick items, $when map items")
    index = {name: at for at, (name, _, _) in enumerate(item[2])}

    def member(name: Any) -> int:
        _check_name(name, item_path)
        if name not in index:
            raise _bad(item_path, f"{name!r} is not a kept member")
        return index[name]

    normalized_only = None
    if only is not None:
        if isinstance(only, str | bytes) or not isinstance(only, Sequence) or len(only) != 2:
            raise _bad(path, f"$only is [member, [strings]], not {only!r}")
        values = only[1]
        if isinstance(values, str | bytes) or not isinstance(values, Sequence | frozenset | set):
            raise _bad(path, f"$only's values are a list of strings, not {values!r}")
        if not all(isinstance(value, str) for value in values):
            raise _bad(path, f"$only's values are strings: {values!r}")
        normalized_only = (member(only[0]), tuple(_json(value, path) for value in sorted(values)))
    if isinstance(cases, str | bytes) or not isinstance(cases, Sequence) or len(cases) > _MAX_CASES:
        raise _bad(path, f"$when is a list of at most {_MAX_CASES} cases, not {cases!r}")
    normalized_cases = tuple(_case(case, path, member) for case in cases)
    return ("each", path, item, normalized_cases, normalized_only)


def _case(case: Any, path: str, member: Any) -> tuple[Any, ...]:
    if not isinstance(case, Mapping) or set(case) - {"match", "drop", "from", "omit"}:
        raise _bad(path, f"a case has match and drop (and from) or omit, not {case!r}")
    match = case.get("match")
    if isinstance(match, str | bytes) or not isinstance(match, Sequence) or not match:
        raise _bad(path, f"a case's match is a list of [member, value], not {match!r}")
    conds = []
    for pair in match:
        if isinstance(pair, str | bytes) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise _bad(path, f"a case's match is a list of [member, value], not {match!r}")
        conds.append((member(pair[0]), _json(pair[1], path)))
    drop = case.get("drop", False)
    start = case.get("from", 0)
    omit = case.get("omit", ())
    if drop is not True and drop is not False:
        raise _bad(path, f"a case's drop is True or False, not {drop!r}")
    if drop == bool(omit) or (start and not drop):
        raise _bad(path, "a case either drops (maybe from an index) or omits members")
    if isinstance(start, bool) or not isinstance(start, int) or start < 0:
        raise _bad(path, f"a case's from is an index, not {start!r}")
    omitted = tuple(member(name) for name in _names(omit, path, "omit"))
    return (tuple(conds), drop, start, omitted)
