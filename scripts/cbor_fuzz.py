"""Mutation fuzzer of the CBOR codec: random bytes, truncations, bit flips of messages.

Every input must give JSON or a CBORError whose offset lies inside the input,
transcoded whole or through a projection (kobrowser.cdp.Keep: kobrowser's
own and some using every option); anything else (a crash, a sanitizer
report) fails. Run by scripts/cbor-asan.sh against a sanitized build;
``python scripts/cbor_fuzz.py [seconds]`` runs it against the installed
codec. ``KOBROWSER_FUZZ_SEED=file.cbor`` adds a real message (e.g. a recorded
``getFullAXTree`` answer) to the seeds.
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path[:0] = [
    p for p in (os.environ.get("KOBROWSER_ASAN_PKG"), str(Path(__file__).resolve().parents[1])) if p
]

from kobrowser._tab._clickable import CAPTURE_KEEP  # noqa: E402
from kobrowser.cdp import Keep, cbor_codec  # noqa: E402
from kobrowser.snapshot._ax import FLAT_AX_KEEP  # noqa: E402
from tests.cdp._cbor_ref import Binary, chrome_encode  # noqa: E402

# Projections of every kind, beside kobrowser's own (their specs' keys are
# among rand_value's and rand_node's, so the fuzz meets them).
SPECS: list[dict[str, Any]] = [
    FLAT_AX_KEEP,
    dict(CAPTURE_KEEP.spec),
    {"value": None, "nodes": {"$each": {"$pick": ["role", "name"], "name": {"$unwrap": "value"}}}},
    {
        "nodes": {
            "$each": {"role": {"$unwrap": "value"}, "name": None, "childIds": {"$each": None}},
            "$only": ["name", ["focused", "checked"]],
            "$when": [{"match": [["role", "StaticText"]], "drop": True, "from": 1}],
        }
    },
]

rng = random.Random(1234)


def rand_text() -> str:
    def one() -> str:
        return chr(
            rng.choice(
                [
                    rng.randrange(32, 127),
                    rng.randrange(0x80, 0xD7FF),
                    rng.randrange(0x10000, 0x10FFFF),
                ]
            )
        )

    return "".join(one() for _ in range(rng.randrange(12)))


def rand_value(depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 4 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.randrange(-(2**40), 2**40)
    if kind == 3:
        return rng.random() * 10 ** rng.randrange(-5, 300)
    if kind == 4:
        return rand_text()
    if kind == 5:
        return Binary(os.urandom(rng.randrange(8)))
    if kind in (6, 7):
        return [rand_value(depth + 1) for _ in range(rng.randrange(5))]
    return {f"k{rng.randrange(99)}é": rand_value(depth + 1) for _ in range(rng.randrange(5))}


def rand_node() -> dict[str, Any]:
    """An AX node with the keys the AX projection drops and random values."""
    keys = [
        "nodeId",
        "ignored",
        "role",
        "chromeRole",
        "name",
        "sources",
        "parentId",
        "childIds",
        "properties",
        "backendDOMNodeId",
        "frameId",
        "description",
        "ignoredReasons",
    ]
    keys.append("value")
    node = {key: rand_value(2) for key in rng.sample(keys, rng.randrange(len(keys)))}
    for key in ("role", "name", "value"):
        if key in node and rng.random() < 0.8:  # else: a value of another shape
            node[key] = {"type": "x", "value": rand_value(3), "sources": [rand_value(3)]}
    if "role" in node and rng.random() < 0.3:
        node["role"] = {"type": "role", "value": rng.choice(["StaticText", "InlineTextBox"])}
    if "properties" in node and rng.random() < 0.8:
        names = ["focused", "checked", "editable", "url", "invalid", rand_value(3)]
        node["properties"] = [
            {"name": rng.choice(names), "value": {"type": "t", "value": rand_value(3)}}
            for _ in range(rng.randrange(4))
        ]
    return node


def rand_document() -> dict[str, Any]:
    """A captureSnapshot document: the sections the capture's projection keeps and drops."""
    sections = ("nodes", "layout", "textBoxes")
    keys = ("parentIndex", "nodeType", "bounds", "attributes", "isClickable", "styles", "text")
    doc: dict[str, Any] = {
        name: {key: rand_value(3) for key in rng.sample(keys, rng.randrange(len(keys)))}
        for name in rng.sample(sections, rng.randrange(len(sections) + 1))
    }
    doc["documentURL"] = rand_value(3)
    return doc


def main(seconds: float) -> None:
    codec = cbor_codec()
    assert codec is not None, "kobrowser.cdp._cbor is not built"
    print("codec:", codec.__file__, flush=True)
    seeds = [
        chrome_encode({"id": rng.randrange(1, 10**6), "result": rand_value()}) for _ in range(300)
    ]
    # getFullAXTree-shaped answers, transcoded with the projections half the time.
    ax_ids = [rng.randrange(1, 10**6) for _ in range(100)]
    seeds += [
        chrome_encode({"id": i, "result": {"nodes": [rand_node() for _ in range(4)]}})
        for i in ax_ids
    ]
    # captureSnapshot-shaped answers, transcoded with the projections half the time.
    click_ids = [rng.randrange(1, 10**6) for _ in range(100)]
    seeds += [
        chrome_encode(
            {
                "id": i,
                "result": {
                    "documents": [rand_document() for _ in range(2)],
                    "strings": ["pointer", "HTML", "BODY", "DIV"][: rng.randrange(5)],
                },
            }
        )
        for i in click_ids
    ]
    seed_file = os.environ.get("KOBROWSER_FUZZ_SEED")
    if seed_file:
        seeds.append(Path(seed_file).read_bytes()[:200_000])
    projections = [Keep(spec).compiled for spec in SPECS]
    count = transcoded = rejected = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pick = rng.random()
        if pick < 0.2:
            data = os.urandom(rng.randrange(64))
        else:
            base = bytearray(rng.choice(seeds))
            if pick < 0.5:
                data = bytes(base[: rng.randrange(len(base) + 1)])
            else:
                for _ in range(rng.randrange(1, 6)):
                    base[rng.randrange(len(base))] ^= 1 << rng.randrange(8)
                data = bytes(base)
        try:
            if rng.random() < 0.5:
                keep = rng.choice(projections)
                codec.to_json(data, dict.fromkeys(ax_ids + click_ids, keep))
            else:
                codec.to_json(data)
            transcoded += 1
        except codec.CBORError as exc:
            assert 0 <= exc.offset <= len(data), (exc, data)
            rejected += 1
        count += 1
    for _ in range(20_000):
        value = rand_value()
        if not isinstance(value, Binary):
            codec.to_json(codec.encode(value))
    print(f"{count} inputs: {transcoded} transcoded, {rejected} rejected; 20000 values encoded")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 60.0)
