"""Rendering call results. Load-bearing direction: binary content never reaches the model as
base64, and an error result is always marked `ERROR:`. The second corpus: text comes through
exactly, and structured content shows when there is no text."""

from __future__ import annotations

from levelcode.core.outcome import SavedResult
from levelcode.mcp.protocol.results import cap_text, render_call_result


def test_text_blocks_are_joined() -> None:
    result = {"content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]}
    assert render_call_result(result).text == "one\ntwo"


def test_binary_blocks_are_summarised_never_dumped() -> None:
    data = "QUJD" * 5000
    result = {
        "content": [
            {"type": "image", "data": data, "mimeType": "image/png"},
            {"type": "audio", "data": data, "mimeType": "audio/wav"},
            {
                "type": "resource",
                "resource": {"uri": "file:///x.bin", "blob": data, "mimeType": "application/zip"},
            },
            {
                "type": "resource_link",
                "uri": "demo://r/1",
                "name": "Blob 1",
                "mimeType": "text/plain",
                "size": 2048,
            },
            {"type": "mystery"},
            "junk",
        ]
    }
    outcome = render_call_result(result)
    text = outcome.text
    assert data not in text
    assert "QUJD" not in text
    assert [(m.kind, m.mime_type, m.data) for m in outcome.media] == [
        ("image", "image/png", data),
        ("audio", "audio/wav", data),
    ]
    assert text.splitlines() == [
        "[image 1: image/png, 14.6 KB, attached]",
        "[audio 2: audio/wav, 14.6 KB, attached]",
        "[resource file:///x.bin: application/zip, 14.6 KB]",
        "[resource link: Blob 1 <demo://r/1> (text/plain, 2.0 KB)]",
        "[unsupported content block: mystery]",
        "[malformed content block]",
    ]


def test_embedded_text_resource_is_shown() -> None:
    block = {"type": "resource", "resource": {"uri": "demo://t", "mimeType": "text/plain", "text": "body"}}
    assert render_call_result({"content": [block]}).text == "[resource demo://t (text/plain)]\nbody"


def test_structured_content_is_rendered_when_there_is_no_text() -> None:
    result = {"content": [], "structuredContent": {"temperature": 21}}
    assert render_call_result(result).text == '{\n  "temperature": 21\n}'
    with_text = {
        "content": [{"type": "text", "text": "21 degrees"}],
        "structuredContent": {"temperature": 21},
    }
    assert render_call_result(with_text).text == "21 degrees"


def test_errors_are_marked() -> None:
    rendered = render_call_result({"content": [{"type": "text", "text": "no such file"}], "isError": True})
    assert (rendered.text, rendered.is_error) == ("ERROR: no such file", True)
    assert render_call_result({"isError": True}).text == "ERROR: the tool reported an error without a message"
    assert render_call_result({}).text == "(the tool returned no content)"


def test_cap_names_the_spill_file() -> None:
    assert cap_text("short", 10) == "short"
    capped = cap_text("x" * 50, 10, saved=SavedResult("/state/results/r.txt", 2_400_000))
    assert capped == "x" * 10 + (
        "\n\n[result cut: showing 10 of 50 characters; the whole result (2.3 MB) is saved in "
        "/state/results/r.txt: read it with read_file, start_line/end_line]"
    )
