"""How conformance/run.py counts a run. Load-bearing direction: a run in which the suite executed
no check (every check skipped: "Passed: 0/0", yet "OVERALL: PASSED" and exit 0) is NOT RUN — never
a pass — and a NOT RUN scenario in scope fails the comparison with the baseline like a failure."""

from __future__ import annotations

from conformance import run

SKIPPED_ONLY = "  SKIPPED sep-2640-host-no-prefetch\nPassed: 0/0, 0 failed, 0 warnings\nOVERALL: PASSED\n"
PASSED = "Checks:\n  SUCCESS initialize\nPassed: 1/1, 0 failed, 0 warnings\nOVERALL: PASSED\n"
FAILED = "Passed: 8/10, 2 failed, 0 warnings\nOVERALL: FAILED\n"


def test_a_run_whose_checks_were_all_skipped_is_not_run() -> None:
    assert run.verdict_of(0, SKIPPED_ONLY) == "NOT RUN"


def test_only_an_executed_and_passed_check_makes_a_pass() -> None:
    assert run.verdict_of(0, PASSED) == "pass"
    assert run.verdict_of(1, FAILED) == "FAIL"
    assert run.verdict_of(1, PASSED) == "FAIL"  # the client failed although the checks passed
    assert run.verdict_of(0, "OVERALL: PASSED\n") == "FAIL"  # no summary at all: nothing proven


def test_not_run_is_counted_apart_and_fails_the_comparison() -> None:
    outcomes = [
        run.Outcome(run.Run("auth/dpop"), "NOT RUN", 1.0, "Passed: 0/0"),
        run.Outcome(run.Run("initialize"), "pass", 1.0, "Passed: 1/1"),
    ]
    assert run.count_line(outcomes) == "1 passed, 0 failed, 1 not run"
    assert run.compare(outcomes, {}) == ["auth/dpop: fails and is not in the baseline"]


def test_unimplemented_extensions_are_shown_but_not_compared() -> None:
    skills = run.Outcome(run.Run("sep-2640-client-no-prefetch"), "NOT RUN", 1.0, "Passed: 0/0")
    assert run.compare([skills], {}) == []
    assert run.count_line([skills]) == "0 passed, 0 failed, 1 not run"


def test_the_plan_covers_every_revision_and_the_auth_extensions() -> None:
    scenarios = {
        "initialize": ("2025-06-18", "2025-11-25"),
        "tools_call": ("2025-11-25", "2026-07-28"),
        "auth/2025-03-26-oauth-endpoint-fallback": ("2025-03-26",),
        "auth/dpop": ("extension",),
        "sep-2322-client-request-state": ("2026-07-28",),
        "sep-2640-client-verify-size": ("extension",),
    }
    labels = {r.label for r in run.planned_runs(scenarios)}
    assert labels == {
        "initialize",
        "tools_call",
        "tools_call@2025-11-25",
        "auth/2025-03-26-oauth-endpoint-fallback",
        "auth/dpop",
        "sep-2322-client-request-state",
    }
