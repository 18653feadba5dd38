"""The native CBOR codec (``kobrowser/cdp/_cbor.c``), when it is built and current.

The codec is optional: an install without a C compiler, or an editable one
whose build is older than its ``_cbor.c``, has none that this code can call.
:func:`cbor_codec` then gives None and a launch takes the JSON pipe, which
:func:`warn_json_fallback` says once, as a warning on the ``kobrowser``
logger (the reason, and how to get the codec).
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

import msgspec

__all__ = ["CODEC_ABI", "cbor_codec", "codec_trouble", "warn_json_fallback"]

_log = logging.getLogger("kobrowser")

CODEC_ABI = 7
"""The ``ABI`` the native codec must report (``CODEC_ABI`` in ``_cbor.c``)."""

_warned = False


def _load() -> tuple[Any, str | None]:
    """The codec module, or None and why there is none."""
    try:
        codec = importlib.import_module(f"{__package__}._cbor")
    except ImportError:
        return None, "is not built"
    try:
        abi = codec.ABI
    except AttributeError:  # a build older than the ABI constant
        abi = None
    if abi != CODEC_ABI:
        return None, f"is stale (ABI {abi}, this code needs {CODEC_ABI})"
    return codec, None


def cbor_codec() -> Any:
    """The native CBOR codec module, or None when it was not built or is stale.

    Stale: a build left over from an older ``_cbor.c`` (an editable install
    not rebuilt), whose ``ABI`` differs from what this code calls. It is not
    used, so launches take the JSON pipe instead of failing on a call the
    old build does not know.
    """
    codec, _ = _load()
    if codec is not None:
        codec.set_default(_to_builtins)
    return codec


def codec_trouble() -> str | None:
    """Why :func:`cbor_codec` gives None (``"is not built"``, ``"is stale (...)"``), else None."""
    return _load()[1]


def warn_json_fallback() -> None:
    """Say once per process, as a warning, that launches use the JSON pipe, and why."""
    global _warned
    why = codec_trouble()
    if why is None or _warned:
        return
    _warned = True
    _log.warning(
        "kobrowser.cdp._cbor %s: launch() uses the JSON pipe, slower on large pages "
        "(reinstall kobrowser where a C compiler is found; in a checkout: pip install -e .)",
        why,
    )


def _to_builtins(value: object) -> object:
    if isinstance(value, msgspec.Raw):
        return msgspec.json.decode(value)
    return msgspec.to_builtins(value)
