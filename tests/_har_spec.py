"""A checker of the HAR 1.2 structure (http://www.softwareishard.com/blog/har-12-spec/):
every object the spec defines, its required fields and their types, the
optional ones' types when present, and the spec's rules on timings (send,
wait and receive are never -1; ``time`` is the sum of the timings that are
not -1, ssl excluded, as it is part of connect)."""

from __future__ import annotations

import datetime
import math
from typing import Any

NUMBER = (int, float)
_REQUIRED: dict[str, dict[str, Any]] = {
    "log": {"version": str, "creator": dict, "entries": list},
    "creator": {"name": str, "version": str},
    "page": {"startedDateTime": str, "id": str, "title": str, "pageTimings": dict},
    "entry": {
        "startedDateTime": str,
        "time": NUMBER,
        "request": dict,
        "response": dict,
        "cache": dict,
        "timings": dict,
    },
    "request": {
        "method": str,
        "url": str,
        "httpVersion": str,
        "cookies": list,
        "headers": list,
        "queryString": list,
        "headersSize": int,
        "bodySize": int,
    },
    "response": {
        "status": int,
        "statusText": str,
        "httpVersion": str,
        "cookies": list,
        "headers": list,
        "content": dict,
        "redirectURL": str,
        "headersSize": int,
        "bodySize": int,
    },
    "content": {"size": int, "mimeType": str},
    "pair": {"name": str, "value": str},
    "cookie": {"name": str, "value": str},
    "postData": {"mimeType": str},
    "timings": {"send": NUMBER, "wait": NUMBER, "receive": NUMBER},
}
_OPTIONAL: dict[str, dict[str, Any]] = {
    "log": {"browser": dict, "pages": list, "comment": str},
    "page": {"comment": str},
    "pageTimings": {"onContentLoad": NUMBER, "onLoad": NUMBER, "comment": str},
    "entry": {"pageref": str, "serverIPAddress": str, "connection": str, "comment": str},
    "request": {"postData": dict, "comment": str},
    "response": {"comment": str},
    "content": {"compression": int, "text": str, "encoding": str, "comment": str},
    "cookie": {
        "path": str,
        "domain": str,
        "expires": str,
        "httpOnly": bool,
        "secure": bool,
        "comment": str,
    },
    "postData": {"params": list, "text": str, "comment": str},
    "timings": {
        "blocked": NUMBER,
        "dns": NUMBER,
        "connect": NUMBER,
        "ssl": NUMBER,
        "comment": str,
    },
}


def _fields(obj: Any, kind: str, where: str, problems: list[str]) -> None:
    if not isinstance(obj, dict):
        problems.append(f"{where}: a {kind} must be an object, got {type(obj).__name__}")
        return
    for name, types in _REQUIRED.get(kind, {}).items():
        if name not in obj:
            problems.append(f"{where}: {kind} lacks required {name!r}")
        elif isinstance(obj[name], bool) and bool not in _as_tuple(types):
            problems.append(f"{where}.{name}: a bool where {types} is wanted")
        elif not isinstance(obj[name], types):
            problems.append(f"{where}.{name}: {type(obj[name]).__name__}, not {types}")
    for name, types in _OPTIONAL.get(kind, {}).items():
        if name in obj and obj[name] is not None and not isinstance(obj[name], types):
            problems.append(f"{where}.{name}: {type(obj[name]).__name__}, not {types}")


def _as_tuple(types: Any) -> tuple[Any, ...]:
    return types if isinstance(types, tuple) else (types,)


def _date(value: Any, where: str, problems: list[str]) -> None:
    try:
        datetime.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        problems.append(f"{where}: {value!r} is not an ISO 8601 date")


def har_problems(document: Any) -> list[str]:
    """Every way ``document`` breaks the HAR 1.2 structure (empty: it is valid)."""
    problems: list[str] = []
    if not isinstance(document, dict) or set(document) != {"log"}:
        return ["the document must be an object with one member, 'log'"]
    log = document["log"]
    _fields(log, "log", "log", problems)
    if problems:
        return problems
    if log["version"] != "1.2":
        problems.append(f"log.version is {log['version']!r}, not '1.2'")
    _fields(log["creator"], "creator", "log.creator", problems)
    if "browser" in log:
        _fields(log["browser"], "creator", "log.browser", problems)
    page_ids = set()
    for i, page in enumerate(log.get("pages") or []):
        where = f"log.pages[{i}]"
        _fields(page, "page", where, problems)
        if isinstance(page, dict):
            _date(page.get("startedDateTime"), where, problems)
            _fields(page.get("pageTimings"), "pageTimings", f"{where}.pageTimings", problems)
            page_ids.add(page.get("id"))
    for i, entry in enumerate(log["entries"]):
        where = f"log.entries[{i}]"
        _fields(entry, "entry", where, problems)
        if not isinstance(entry, dict) or any(p.startswith(where + ":") for p in problems):
            continue
        _date(entry["startedDateTime"], where, problems)
        if "pageref" in entry and entry["pageref"] not in page_ids:
            problems.append(f"{where}.pageref {entry['pageref']!r} names no page")
        request, response = entry["request"], entry["response"]
        _fields(request, "request", f"{where}.request", problems)
        _fields(response, "response", f"{where}.response", problems)
        for part, obj in (("request", request), ("response", response)):
            for key in ("headers", "cookies") + (("queryString",) if part == "request" else ()):
                for j, item in enumerate(obj.get(key) or []):
                    kind = "cookie" if key == "cookies" else "pair"
                    _fields(item, kind, f"{where}.{part}.{key}[{j}]", problems)
        if "postData" in request:
            _fields(request["postData"], "postData", f"{where}.request.postData", problems)
        _fields(response.get("content"), "content", f"{where}.response.content", problems)
        timings = entry["timings"]
        _fields(timings, "timings", f"{where}.timings", problems)
        if not isinstance(timings, dict):
            continue
        for name in ("send", "wait", "receive"):
            if isinstance(timings.get(name), NUMBER) and timings[name] < 0:
                problems.append(f"{where}.timings.{name} is negative")
        for name in ("blocked", "dns", "connect", "ssl"):
            value = timings.get(name, -1)
            if isinstance(value, NUMBER) and value < 0 and value != -1:
                problems.append(f"{where}.timings.{name} is {value} (-1 or >= 0)")
        total = sum(v for k, v in timings.items() if k not in ("ssl", "comment") and v != -1)
        if not math.isclose(entry["time"], total, abs_tol=0.01):
            problems.append(f"{where}.time {entry['time']} is not the timings' sum {total}")
    return problems
