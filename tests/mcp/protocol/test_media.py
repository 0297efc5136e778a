"""Pictures and sounds a server returns. Load-bearing direction: what the model must not be given
— a type it does not accept, data over the size cap or not base64, more than the count per
result — is dropped with a note in the text, never attached and never put in the text as
base64. The second corpus: images and audio of the accepted types are attached, in order."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.mcp.protocol.media import MediaLimits
from levelcode.mcp.protocol.results import render_call_result

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40).decode()


def _result(*blocks: dict[str, object]) -> dict[str, object]:
    return {"content": [{"type": "text", "text": "shot:"}, *blocks]}


def _image(mime: str = "image/png", data: str = PNG) -> dict[str, object]:
    return {"type": "image", "mimeType": mime, "data": data}


REFUSED = {
    "a type the APIs do not take": (_image("image/tiff"), "is not a type it accepts"),
    "svg (text that runs as code in some viewers)": (_image("image/svg+xml"), "is not a type it accepts"),
    "audio as ogg": ({"type": "audio", "mimeType": "audio/ogg", "data": PNG}, "is not a type it accepts"),
    "not base64": (_image(data="not*base64!"), "not valid base64"),
    "over the size cap": (_image(data=base64.b64encode(b"\x00" * 2048).decode()), "over the 1.0 KB limit"),
    "no data": (_image(data=""), "no data"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_media_the_model_must_not_get_is_dropped_with_a_note(case: str) -> None:
    block, note = REFUSED[case]
    outcome = render_call_result(_result(block), MediaLimits(max_bytes=1024))
    assert outcome.media == ()
    assert note in outcome.text
    assert str(block["data"]) not in outcome.text or not block["data"]


def test_over_the_count_the_rest_are_dropped_and_said() -> None:
    outcome = render_call_result(_result(*[_image()] * 3), MediaLimits(max_count=2))
    assert len(outcome.media) == 2
    assert outcome.text.splitlines()[1:] == [
        "[image 1: image/png, 48 bytes, attached]",
        "[image 2: image/png, 48 bytes, attached]",
        "[image not shown to the model: image/png, 48 bytes; at most 2 per result]",
    ]


ACCEPTED = ["image/png", "image/jpeg", "image/gif", "image/webp", "IMAGE/PNG"]


@pytest.mark.parametrize("mime", ACCEPTED)
def test_accepted_images_are_attached(mime: str) -> None:
    outcome = render_call_result(_result(_image(mime)))
    assert [(m.kind, m.mime_type, m.data) for m in outcome.media] == [("image", mime.lower(), PNG)]
    assert PNG not in outcome.text


def test_an_error_result_carries_no_media() -> None:
    outcome = render_call_result({**_result(_image()), "isError": True})
    assert outcome.is_error
    assert outcome.media == ()


@given(st.lists(st.sampled_from(["image/png", "image/tiff", "audio/wav", "audio/ogg"]), max_size=8))
def test_never_more_than_the_count_and_always_a_note_per_block(mimes: list[str]) -> None:
    blocks = [{"type": m.split("/")[0], "mimeType": m, "data": PNG} for m in mimes]
    outcome = render_call_result(_result(*blocks), MediaLimits(max_count=3))
    assert len(outcome.media) <= 3
    assert len(outcome.text.splitlines()) == 1 + len(mimes)
    assert all(m.mime_type in ("image/png", "audio/wav") for m in outcome.media)
