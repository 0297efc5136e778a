"""The official MCP conformance suite (pinned in package.json) runs its client scenarios against
conformance/client.py, which drives LevelCode's own connection code.

Load-bearing direction: every scenario tagged 2025-03-26, 2025-11-25 or 2026-07-28, and every auth
extension scenario (client credentials basic and JWT, DPoP with and without nonces, enterprise-managed
authorization, workload identity), passes unless conformance/baseline.json lists it with a reason —
a new failure fails this test, a run that executed no check fails it too (not run is not passed),
and so does a listed scenario that passes. The baseline is empty: every one passes, and those
tagged with both current revisions pass at 2025-11-25 as well. The skills extension (SEP-2640) is
left out: LevelCode has no skills feature for it to test. The suite's previous line (0.1.16, pinned
as `conformance-0.1`) runs its 2025-03-26 scenarios too, which must pass.
"""

from __future__ import annotations

import asyncio

import pytest

from conformance import run

pytestmark = pytest.mark.skipif(
    not run.NODE.exists() or not run.SUITE.exists(),
    reason="the conformance suite or its Node 22 binary is not installed (npm ci; linux-x64 only)",
)

SCENARIOS_IN_THE_PINNED_RELEASE = 36 + 2 + 6  # the two current revisions, 2025-03-26, auth extensions
AUTH_EXTENSIONS = {
    "auth/client-credentials-basic",
    "auth/client-credentials-jwt",
    "auth/dpop",
    "auth/dpop-nonce",
    "auth/enterprise-managed-authorization",
    "auth/wif-jwt-bearer",
}


def test_the_previous_lines_2025_03_26_scenarios_pass() -> None:
    """The suite's 0.1 line serves 2025-03-26's authorization differently from the pinned one (its
    metadata names an issuer at a path on the server's origin): what servers of that withdrawn
    revision still do, so both lines must pass."""
    if not (run.PREVIOUS_SUITE / "package.json").is_file():
        raise RuntimeError(f"{run.PREVIOUS_SUITE} is missing: run `npm ci` (scripts/test does it)")
    suite = run.suite_entry(run.PREVIOUS_SUITE)
    tagged = run.client_scenarios(suite).items()
    runs = [run.Run(name) for name, tags in tagged if set(tags) & set(run.OLDER_REVISIONS)]
    outcomes = asyncio.run(run.run_all(runs, jobs=2, suite=suite))
    assert {o.run.label: o.verdict for o in outcomes} == {
        "auth/2025-03-26-oauth-metadata-backcompat": "pass",
        "auth/2025-03-26-oauth-endpoint-fallback": "pass",
    }, "\n".join(f"--- {o.run.label}\n{o.detail}" for o in outcomes if not o.passed)


def test_the_baseline_excuses_nothing() -> None:
    assert run.load_baseline() == {}


@pytest.mark.timeout(900)
def test_client_scenarios_pass_or_are_in_the_baseline() -> None:
    runs = run.planned_runs(run.client_scenarios())
    assert len([r for r in runs if r.version is None]) == SCENARIOS_IN_THE_PINNED_RELEASE
    outcomes = asyncio.run(run.run_all(runs, jobs=3))
    baseline = run.load_baseline()
    failures = [
        f"--- {o.run.label}\n{o.detail}" for o in outcomes if not o.passed and o.run.label not in baseline
    ]
    assert run.compare(outcomes, baseline) == [], "\n".join(failures)
    assert {o.run.label for o in outcomes if o.passed} >= {
        "initialize",
        "tools_call",
        "sse-retry",
        "auth/metadata-default",
        "auth/scope-step-up@2025-11-25",
        "auth/2025-03-26-oauth-metadata-backcompat",
        "auth/2025-03-26-oauth-endpoint-fallback",
        *AUTH_EXTENSIONS,
    }
