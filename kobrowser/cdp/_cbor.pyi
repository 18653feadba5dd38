"""Type stub of the native codec (kobrowser/cdp/_cbor.c)."""

from collections.abc import Callable
from typing import Any

from typing_extensions import Buffer

class CBORError(ValueError):
    """Malformed, truncated or oversized CBOR; ``offset`` is where reading failed."""

    offset: int
    call_id: int | None
    def __init__(self, message: str, offset: int, call_id: int | None = None) -> None: ...

ABI: int

def to_json(data: Buffer, keeps: dict[int, Any] | None = None, /) -> bytes: ...
def compile(shape: tuple[Any, ...], /) -> Any: ...
def encode_call(
    call_id: int, method: str, params: dict[str, Any] | None, session_id: str | None, /
) -> bytes: ...
def encode(value: Any, /) -> bytes: ...
def set_default(hook: Callable[[Any], Any] | None, /) -> None: ...
