"""A server's elicitation request as a form. Load-bearing direction: nothing the field refuses is
sent — a value out of range, of the wrong type, not among the choices, a malformed email or date,
a default the field itself would refuse — and a URL other than http(s) is never offered to open.
The second corpus: what the spec's schema allows becomes fields with their defaults pre-filled."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.mcp.calls.elicitation import (
    FormRequest,
    Invalid,
    Unusable,
    UrlRequest,
    check_value,
    missing,
    parse_elicitation,
    parse_typed,
    prefilled,
)

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 2},
        "email": {"type": "string", "format": "email"},
        "age": {"type": "integer", "minimum": 18, "maximum": 130, "default": 42},
        "ratio": {"type": "number", "minimum": 0, "maximum": 1, "default": 7},
        "agree": {"type": "boolean", "default": False},
        "color": {"type": "string", "enum": ["red", "green"], "default": "red"},
        "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}]},
        "fish": {"type": "array", "items": {"anyOf": [{"const": "f1", "title": "Tuna"}]}, "maxItems": 1},
        "born": {"type": "string", "format": "date"},
    },
    "required": ["name"],
}


def _form() -> FormRequest:
    form = parse_elicitation({"message": "Tell me", "requestedSchema": SCHEMA})
    assert isinstance(form, FormRequest)
    return form


def _field(name: str):  # type: ignore[no-untyped-def]
    return next(f for f in _form().fields if f.name == name)


def test_fields_and_defaults_as_the_spec_has_them() -> None:
    form = _form()
    assert [(f.name, f.kind) for f in form.fields] == [
        ("name", "string"),
        ("email", "string"),
        ("age", "integer"),
        ("ratio", "number"),
        ("agree", "boolean"),
        ("color", "enum"),
        ("hero", "enum"),
        ("fish", "multi"),
        ("born", "string"),
    ]
    # the default 7 is over the field's maximum, so it is not pre-filled
    assert prefilled(form) == {"age": 42, "agree": False, "color": "red"}
    assert missing(form, prefilled(form)) == ["Name"]
    assert dict(_field("hero").options) == {"h1": "Superman"}


REFUSED = [
    ("name", "x"),
    ("email", "not an email"),
    ("age", "17"),
    ("age", "18.5"),
    ("age", "many"),
    ("ratio", "1.5"),
    ("agree", "maybe"),
    ("color", "blue"),
    ("fish", "f1,f1"),
    ("fish", "salmon"),
    ("born", "yesterday"),
]


@pytest.mark.parametrize(("name", "typed"), REFUSED)
def test_what_the_field_refuses_is_not_accepted(name: str, typed: str) -> None:
    assert isinstance(parse_typed(_field(name), typed), Invalid)


ACCEPTED = [
    ("name", "Ada", "Ada"),
    ("name", "! not a marker", "! not a marker"),
    ("email", "ada@example.org", "ada@example.org"),
    ("age", "30", 30),
    ("ratio", "0.5", 0.5),
    ("agree", "y", True),
    ("color", "2", "green"),
    ("hero", "Superman", "h1"),
    ("fish", "1", ["f1"]),
    ("born", "1815-12-10", "1815-12-10"),
]


@pytest.mark.parametrize(("name", "typed", "value"), ACCEPTED)
def test_what_the_field_takes_is_sent_as_its_type(name: str, typed: str, value: object) -> None:
    assert parse_typed(_field(name), typed) == value


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "file:///etc/passwd", "data:text/html,<b>x</b>", "https://"]
)
def test_only_http_urls_are_offered(url: str) -> None:
    request = parse_elicitation({"mode": "url", "message": "go", "url": url, "elicitationId": "e1"})
    assert isinstance(request, Unusable)


def test_a_url_request_names_its_host() -> None:
    request = parse_elicitation(
        {"mode": "url", "message": "sign in", "url": "https://auth.example.com/x?y=1", "elicitationId": "e1"}
    )
    assert isinstance(request, UrlRequest)
    assert request.host == "auth.example.com"


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"nested": {"type": "object", "properties": {}}}},
        {"type": "object", "properties": {"list": {"type": "array", "items": {"type": "string"}}}},
        {"type": "object", "properties": {f"f{i}": {"type": "string"} for i in range(31)}},
        {"type": "object"},
    ],
)
def test_schemas_outside_the_spec_subset_are_unusable(schema: dict[str, object]) -> None:
    assert isinstance(parse_elicitation({"message": "x", "requestedSchema": schema}), Unusable)


@given(st.text(max_size=20))
def test_whatever_is_typed_the_value_sent_passes_the_fields_own_check(typed: str) -> None:
    for field in _form().fields:
        value = parse_typed(field, typed)
        if not isinstance(value, Invalid):
            assert not isinstance(check_value(field, value), Invalid)
