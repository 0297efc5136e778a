"""Reading a tool call's arguments: the model's JSON, checked once, with a message it can act on.

No I/O of its own: never touches files or processes. Every failure is a `ToolError` naming the argument.
"""

from __future__ import annotations

from levelcode.core.errors import ToolError
from levelcode.tools.base import Args


def required_str(args: Args, name: str, *, allow_empty: bool = False) -> str:
    value = args.get(name)
    if not isinstance(value, str):
        raise ToolError(f"argument {name!r} is required and must be a string")
    if not allow_empty and not value.strip():
        raise ToolError(f"argument {name!r} must not be empty")
    return value


def optional_str(args: Args, name: str, default: str) -> str:
    if args.get(name) is None:
        return default
    return required_str(args, name)


def optional_int(args: Args, name: str, default: int, *, minimum: int, maximum: int) -> int:
    """An integer argument clamped above to `maximum`; below `minimum` is an error, not a guess."""
    value = args.get(name)
    if value is None:
        return default
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolError(f"argument {name!r} must be an integer")
    if value < minimum:
        raise ToolError(f"argument {name!r} must be at least {minimum}")
    return min(value, maximum)


def optional_bool(args: Args, name: str, default: bool = False) -> bool:
    value = args.get(name)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ToolError(f"argument {name!r} must be true or false")
    return value
