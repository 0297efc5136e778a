"""A server's `elicitation/create` request as a form LevelCode can show, and the user's answers
checked against it before they are sent (MCP 2025-11-25: form and URL modes).

Pure. The schema is the spec's restricted subset — a flat object of string, number, integer,
boolean and (single- or multi-select) enum fields; anything else makes the request unusable and
it is declined. All text in it is the server's: capped here, escaped where it is printed, and
always shown as the server's. Defaults pre-fill the form (the spec: clients SHOULD pre-populate
fields with them), and a default that the field itself would refuse is dropped. A field that looks
like it wants a secret (mcp/calls/secret_fields.py) is marked so: the form warns about it, and its
value is never shown (`shown_value` hides it).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from levelcode.mcp.calls.secret_fields import looks_like_secret

PURE = True

FieldKind = Literal["string", "number", "integer", "boolean", "enum", "multi"]
MAX_MESSAGE_CHARS = 2_000
MAX_LABEL_CHARS = 200
MAX_DESCRIPTION_CHARS = 500
MAX_FIELDS = 30
MAX_OPTIONS = 100
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?")


@dataclass(frozen=True)
class FormField:
    name: str
    kind: FieldKind
    title: str
    description: str = ""
    required: bool = False
    default: object = None
    options: tuple[tuple[str, str], ...] = ()  # (value, label) of an enum
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    format: str | None = None
    secret: bool = False  # looks like a password, token or key: warned about, never shown


@dataclass(frozen=True)
class FormRequest:
    message: str
    fields: tuple[FormField, ...]

    @property
    def secret_fields(self) -> tuple[FormField, ...]:
        return tuple(f for f in self.fields if f.secret)


@dataclass(frozen=True)
class UrlRequest:
    message: str
    url: str
    host: str
    elicitation_id: str


@dataclass(frozen=True)
class Unusable:
    reason: str


@dataclass(frozen=True)
class Invalid:
    """What the user typed (or the server's default) does not fit the field: why."""

    reason: str


def _cap(text: object, limit: int) -> str:
    if not isinstance(text, str):
        return ""
    return text if len(text) <= limit else text[:limit] + "…"


def parse_elicitation(params: Mapping[str, object]) -> FormRequest | UrlRequest | Unusable:
    message = _cap(params.get("message"), MAX_MESSAGE_CHARS)
    mode = params.get("mode", "form")
    if mode == "url":
        return _url_request(message, params)
    if mode != "form":
        return Unusable(f"unknown elicitation mode {str(mode)[:40]!r}")
    schema = params.get("requestedSchema")
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping) or len(properties) > MAX_FIELDS:
        return Unusable("the requested schema is not a flat object of at most 30 fields")
    raw_required = schema.get("required") if isinstance(schema, Mapping) else None
    required = set(raw_required) if isinstance(raw_required, list) else set()
    fields = []
    for name, prop in properties.items():
        parsed = _field(str(name), prop, str(name) in required)
        if isinstance(parsed, Unusable):
            return parsed
        fields.append(parsed)
    return FormRequest(message, tuple(fields))


def _url_request(message: str, params: Mapping[str, object]) -> UrlRequest | Unusable:
    url, elicitation_id = params.get("url"), params.get("elicitationId")
    if not isinstance(url, str) or len(url) > 4_000 or not isinstance(elicitation_id, str):
        return Unusable("a URL request needs `url` and `elicitationId`")
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. a fullwidth solidus in the host, which NFKC makes a separator
        return Unusable("the URL cannot be read as one")
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return Unusable(f"only http and https URLs are opened, not {parts.scheme or 'this'!r}")
    return UrlRequest(message, url, parts.hostname, elicitation_id[:200])


def _field(name: str, prop: object, required: bool) -> FormField | Unusable:
    if not isinstance(prop, Mapping):
        return Unusable(f"field {name[:60]!r} has no schema")
    kind = _kind(prop)
    if kind is None:
        return Unusable(f"field {name[:60]!r} is not a string, number, boolean or enum")
    field = FormField(
        name=name[:MAX_LABEL_CHARS],
        kind=kind,
        title=_cap(prop.get("title"), MAX_LABEL_CHARS) or name[:MAX_LABEL_CHARS],
        description=_cap(prop.get("description"), MAX_DESCRIPTION_CHARS),
        required=required,
        options=_options(prop),
        minimum=_number(prop.get("minimum" if kind != "string" else "_")),
        maximum=_number(prop.get("maximum" if kind != "string" else "_")),
        min_length=_count(prop.get("minLength", prop.get("minItems"))),
        max_length=_count(prop.get("maxLength", prop.get("maxItems"))),
        format=_text_or_none(prop.get("format")),
        secret=looks_like_secret(name, kind, prop),
    )
    default = prop.get("default")
    if default is not None and not isinstance(check_value(field, default), Invalid):
        return dataclasses.replace(field, default=default)
    return field


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _kind(prop: Mapping[str, object]) -> FieldKind | None:
    declared = prop.get("type")
    if declared == "array":
        return "multi" if _options(prop) else None
    if declared == "string" and _options(prop):
        return "enum"
    if declared in ("string", "number", "integer", "boolean"):
        return declared
    return None


def _options(prop: Mapping[str, object]) -> tuple[tuple[str, str], ...]:
    source: Mapping[str, object] = prop
    items = prop.get("items")
    if prop.get("type") == "array" and isinstance(items, Mapping):
        source = items
    found: list[tuple[str, str]] = []
    values = source.get("enum")
    names = source.get("enumNames")  # the 2025-06-18 way of titling options
    if isinstance(values, list):
        labels = names if isinstance(names, list) and len(names) == len(values) else values
        found = [
            (v, _cap(str(label), MAX_LABEL_CHARS))
            for v, label in zip(values, labels, strict=True)
            if isinstance(v, str)
        ]
    for key in ("oneOf", "anyOf"):
        choices = source.get(key)
        if isinstance(choices, list):
            found += [
                (c["const"], _cap(c.get("title") or c["const"], MAX_LABEL_CHARS))
                for c in choices
                if isinstance(c, Mapping) and isinstance(c.get("const"), str)
            ]
    return tuple(found[:MAX_OPTIONS])


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def check_value(field: FormField, value: object) -> object:
    """`value` if the field accepts it, else `Invalid` saying why not."""
    problem = _problem(field, value)
    return Invalid(problem) if problem else value


def _problem(field: FormField, value: object) -> str | None:
    if field.kind == "boolean":
        return None if isinstance(value, bool) else "must be yes or no"
    if field.kind in ("number", "integer"):
        return _number_problem(field, value)
    if field.kind == "enum":
        return None if value in {v for v, _ in field.options} else "must be one of the choices"
    if field.kind == "multi":
        return _multi_problem(field, value)
    if not isinstance(value, str):
        return "must be text"
    if field.min_length is not None and len(value) < field.min_length:
        return f"must be at least {field.min_length} characters"
    if field.max_length is not None and len(value) > field.max_length:
        return f"must be at most {field.max_length} characters"
    return _format_problem(field.format, value)


def _number_problem(field: FormField, value: object) -> str | None:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "must be a number"
    if field.kind == "integer" and not float(value).is_integer():
        return "must be a whole number"
    if field.minimum is not None and value < field.minimum:
        return f"must be at least {field.minimum:g}"
    if field.maximum is not None and value > field.maximum:
        return f"must be at most {field.maximum:g}"
    return None


def _multi_problem(field: FormField, value: object) -> str | None:
    allowed = {v for v, _ in field.options}
    if not isinstance(value, list) or not all(item in allowed for item in value):
        return "must be some of the choices"
    if field.min_length is not None and len(value) < field.min_length:
        return f"choose at least {field.min_length}"
    if field.max_length is not None and len(value) > field.max_length:
        return f"choose at most {field.max_length}"
    return None


def _format_problem(form: str | None, value: str) -> str | None:
    if form == "email" and not _EMAIL.fullmatch(value):
        return "must be an email address"
    if form == "uri" and not urlsplit(value).scheme:
        return "must be a URI (with a scheme, such as https://)"
    if form == "date" and not _DATE.fullmatch(value):
        return "must be a date: YYYY-MM-DD"
    if form == "date-time" and not _DATE_TIME.fullmatch(value):
        return "must be a date and time: YYYY-MM-DDTHH:MM"
    return None


def parse_typed(field: FormField, text: str) -> object:
    """What the user typed for `field`, as the value to send, or `Invalid` when it is not one."""
    text = text.strip()
    if field.kind == "boolean":
        lowered = text.lower()
        if lowered in ("y", "yes", "true", "1"):
            return True
        return False if lowered in ("n", "no", "false", "0") else Invalid("must be yes or no")
    if field.kind in ("number", "integer"):
        try:
            number: float = float(text)
        except ValueError:
            return Invalid("must be a number")
        return check_value(field, int(number) if field.kind == "integer" and number.is_integer() else number)
    if field.kind in ("enum", "multi"):
        picked = [_pick(field, part) for part in (text.split(",") if field.kind == "multi" else [text])]
        if any(p is None for p in picked):
            return Invalid("must be one of the choices (its number or value)")
        return check_value(field, picked if field.kind == "multi" else picked[0])
    return check_value(field, text)


def _pick(field: FormField, text: str) -> str | None:
    text = text.strip()
    if text.isascii() and text.isdigit() and 1 <= int(text) <= len(field.options):  # not "²"
        return field.options[int(text) - 1][0]
    return next((value for value, label in field.options if text in (value, label)), None)


def missing(form: FormRequest, values: Mapping[str, object]) -> list[str]:
    return [f.title for f in form.fields if f.required and values.get(f.name) is None]


def prefilled(form: FormRequest) -> dict[str, object]:
    """The form's starting values: each field's default, where it has one."""
    return {f.name: f.default for f in form.fields if f.default is not None}


HIDDEN = "(hidden)"


def shown_value(field: FormField, value: object) -> str:
    if value is None:
        return "(empty)"
    if field.secret:
        return HIDDEN
    if field.kind == "boolean":
        return "yes" if value else "no"
    labels = dict(field.options)
    if field.kind == "multi" and isinstance(value, Sequence):
        return ", ".join(labels.get(str(v), str(v)) for v in value)
    return labels.get(str(value), str(value)) if field.kind == "enum" else str(value)
