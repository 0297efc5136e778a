"""When a kept token counts as about to lapse, and is renewed before it is sent. Load-bearing
direction: a token is renewed ahead of its expiry, but never from the moment it was issued — a
token that lives less than the minute it is renewed ahead is renewed in the last quarter of its
life instead (before: on every request). A token kept before its issue time was recorded keeps
the old rule, and the time is kept with the token."""

from __future__ import annotations

import pytest

from levelcode.mcp.http.oauth.authorizer import REFRESH_AHEAD_SECONDS
from levelcode.mcp.http.oauth.requests import Tokens
from levelcode.mcp.http.oauth.token_records import tokens_of, tokens_record, with_tokens

ISSUED = 1_000_000.0


def token(lifetime: float, *, issued: float | None = ISSUED) -> Tokens:
    return Tokens("at", "rt", ISSUED + lifetime, issued_at=issued)


@pytest.mark.parametrize(
    ("lifetime", "after", "lapsing"),
    [
        (3600, 0, False),
        (3600, 3600 - REFRESH_AHEAD_SECONDS - 1, False),
        (3600, 3600 - REFRESH_AHEAD_SECONDS, True),  # the last minute of an hour
        (45, 0, False),  # a short-lived token just issued
        (45, 33, False),
        (45, 34, True),  # its last quarter
        (5, 3, False),
        (5, 4, True),
        (45, 60, True),  # expired
    ],
)
def test_a_token_lapses_in_its_last_minute_or_its_last_quarter(
    lifetime: float, after: float, lapsing: bool
) -> None:
    assert token(lifetime).lapsing(REFRESH_AHEAD_SECONDS, now=ISSUED + after) is lapsing


def test_a_token_kept_without_its_issue_time_lapses_a_minute_ahead() -> None:
    kept = token(45, issued=None)
    assert kept.lapsing(REFRESH_AHEAD_SECONDS, now=ISSUED)


def test_a_token_without_an_expiry_never_lapses() -> None:
    assert not Tokens("at").lapsing(REFRESH_AHEAD_SECONDS, now=ISSUED)


def test_the_issue_time_is_kept_with_the_token_and_survives_a_refresh_without_rotation() -> None:
    first = token(45)
    assert tokens_of({"tokens": tokens_record(first)}) == first
    renewed = Tokens("at-2", None, ISSUED + 90, issued_at=ISSUED + 45)
    kept = tokens_of(with_tokens({}, renewed, first))
    assert kept is not None
    assert (kept.refresh_token, kept.issued_at) == ("rt", ISSUED + 45)
