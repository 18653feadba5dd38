"""The oracle of the projection tests: a Keep spec applied to a decoded JSON value.

:func:`project` is kobrowser/cdp/_keep.py's description of a spec written
plainly over Python values, in the order the codec reads a map's keys;
:class:`Refused` is its "unexpected answer" (the codec's CBORError).
"""

from __future__ import annotations

from typing import Any

__all__ = ["Refused", "project"]


class Refused(Exception):
    """The value does not have the shape the spec says."""


_DROPPED = object()


def _options(spec: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in spec.items() if key.startswith("$")}


def _members(spec: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in spec.items() if not key.startswith("$")}


def _same(written: Any, value: Any) -> bool:
    return type(written) is type(value) and written == value


def _map(spec: dict[str, Any], value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Refused(f"{where} is not a map")
    return value


def project(spec: Any, value: Any, where: str = "result") -> Any:
    """``value`` as ``spec`` keeps it; raises Refused."""
    if spec is None:
        return value
    if value is None:
        return None
    if "$unwrap" in spec:
        return _map(spec, value, where).get(spec["$unwrap"])
    if "$each" in spec:
        if not isinstance(value, list):
            raise Refused(f"{where} is not an array")
        out = []
        for index, item in enumerate(value):
            kept = _item(spec, item, index, f"{where}[]")
            if kept is not _DROPPED:
                out.append(kept)
        return out
    if "$pick" in spec:
        return _pick(spec, value, None, where)
    rename = spec.get("$rename", {})
    members = _members(spec)
    return {
        rename.get(key, key): project(members[key], member, f"{where}.{key}")
        for key, member in _map(spec, value, where).items()
        if key in members
    }


def _pick(spec: dict[str, Any], value: Any, only: Any, where: str) -> Any:
    value = _map(spec, value, where)
    for name in spec["$pick"]:
        if name not in value:
            raise Refused(f"{where} has no {name}")
    if only is not None:
        name = only[0]
        if not _only(only, project(spec.get(name), value[name], f"{where}.{name}"), where):
            return _DROPPED
    return [project(spec.get(name), value[name], f"{where}.{name}") for name in spec["$pick"]]


def _only(only: Any, written: Any, where: str) -> bool:
    if not isinstance(written, str):
        raise Refused(f"{where}.{only[0]} is not a string")
    return written in only[1]


def _item(spec: dict[str, Any], item: Any, index: int, where: str) -> Any:
    cases = spec.get("$when", [])
    only = spec.get("$only")
    shape = spec["$each"]
    if (not cases and only is None) or item is None:
        return project(shape, item, where)
    if "$pick" in shape:
        return _pick(shape, item, only, where)
    item = _map(shape, item, where)
    members = _members(shape)
    rename = shape.get("$rename", {})
    progress = [0] * len(cases)
    omit: set[str] = set()
    kept: bool | None = None
    out = {}
    for key, member in item.items():
        if key not in members or key in omit:
            continue
        written = project(members[key], member, f"{where}.{key}")
        out[rename.get(key, key)] = written
        if only is not None and key == only[0]:
            kept = _only(only, written, where)
        for k, case in enumerate(cases):
            step = progress[k]
            match = case["match"]
            if step < 0 or step >= len(match) or match[step][0] != key:
                continue
            progress[k] = step = step + 1 if _same(written, match[step][1]) else -1
            if step < len(match):
                continue
            if not case.get("drop"):
                omit.update(case.get("omit", ()))
            elif index >= case.get("from", 0):
                return _DROPPED  # the rest goes unread
    if only is not None:
        if kept is None:
            raise Refused(f"{where} has no {only[0]}")
        if not kept:
            return _DROPPED
    return out
