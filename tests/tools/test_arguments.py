"""Argument readers: what the model sends is checked once, with a message naming the argument."""

from __future__ import annotations

import pytest

from levelcode.core.errors import ToolError
from levelcode.tools.arguments import optional_bool, optional_int, optional_str, required_str


def test_strings() -> None:
    assert required_str({"a": "x"}, "a") == "x"
    assert required_str({"a": ""}, "a", allow_empty=True) == ""
    assert optional_str({}, "a", "dflt") == "dflt"
    assert optional_str({"a": None}, "a", "dflt") == "dflt"
    for args in ({}, {"a": 3}, {"a": " "}):
        with pytest.raises(ToolError, match="'a'"):
            required_str(args, "a")


def test_integers_are_clamped_above_and_refused_below() -> None:
    assert optional_int({}, "n", 5, minimum=1, maximum=10) == 5
    assert optional_int({"n": 7.0}, "n", 5, minimum=1, maximum=10) == 7
    assert optional_int({"n": 10_000}, "n", 5, minimum=1, maximum=10) == 10
    for bad in (0, True, "3", 2.5):
        with pytest.raises(ToolError, match="'n'"):
            optional_int({"n": bad}, "n", 5, minimum=1, maximum=10)


def test_booleans() -> None:
    assert optional_bool({}, "b") is False
    assert optional_bool({"b": True}, "b") is True
    with pytest.raises(ToolError, match="true or false"):
        optional_bool({"b": "yes"}, "b")
