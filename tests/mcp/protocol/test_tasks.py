"""Task shapes from an untrusted server, parsed into one type: both spellings, bad values refused
or bounded (a server cannot make the client poll in a tight loop or never again)."""

from __future__ import annotations

from levelcode.mcp.protocol.tasks import (
    MAX_POLL_SECONDS,
    MIN_POLL_SECONDS,
    created_task,
    legacy_task_support,
    parse_task,
    task_spelling,
)


def test_the_extensions_task_result_and_a_plain_result() -> None:
    raw = {"resultType": "task", "taskId": "t1", "status": "working", "pollIntervalMs": 250}
    task = created_task(raw, "extension")
    assert task is not None
    assert (task.task_id, task.status, task.poll_seconds) == ("t1", "working", 0.25)
    assert created_task({"resultType": "complete", "content": []}, "extension") is None


def test_the_2025_11_25_task_result_and_a_plain_result() -> None:
    task = created_task({"task": {"taskId": "t2", "status": "working", "pollInterval": 1000}}, "legacy")
    assert task is not None
    assert (task.task_id, task.poll_seconds) == ("t2", 1.0)
    assert created_task({"content": [{"type": "text", "text": "x"}]}, "legacy") is None


def test_poll_intervals_are_bounded() -> None:
    fast = parse_task({"taskId": "t", "status": "working", "pollIntervalMs": 0}, "extension")
    slow = parse_task({"taskId": "t", "status": "working", "pollIntervalMs": 10**9}, "extension")
    odd = parse_task({"taskId": "t", "status": "working", "pollIntervalMs": "soon"}, "extension")
    assert fast is not None
    assert fast.poll_seconds == MIN_POLL_SECONDS
    assert slow is not None
    assert slow.poll_seconds == MAX_POLL_SECONDS
    assert odd is not None
    assert odd.poll_seconds == 1.0


def test_what_is_not_a_task_is_refused_and_server_text_is_capped() -> None:
    assert parse_task({"taskId": "", "status": "working"}, "extension") is None
    assert parse_task({"taskId": "t", "status": "sleeping"}, "extension") is None
    assert parse_task({"taskId": 7, "status": "working"}, "extension") is None
    long = parse_task({"taskId": "t", "status": "working", "statusMessage": "a\nb " * 500}, "extension")
    assert long is not None
    assert long.message is not None
    assert len(long.message) == 200
    assert "\n" not in long.message


def test_a_2025_11_25_tools_task_support() -> None:
    assert legacy_task_support({"execution": {"taskSupport": "required"}}) == "required"
    assert legacy_task_support({"execution": {"taskSupport": "optional"}}) == "optional"
    assert legacy_task_support({"execution": {"taskSupport": "maybe"}}) == "forbidden"
    assert legacy_task_support({}) == "forbidden"
    assert legacy_task_support(None) == "forbidden"


def test_which_calls_may_become_tasks() -> None:
    required = {"execution": {"taskSupport": "required"}}
    assert task_spelling("modern", False, None) == "extension"  # the server decides
    assert task_spelling("legacy", True, required) == "legacy"
    assert task_spelling("legacy", True, {}) is None  # the tool does not support tasks
    assert task_spelling("legacy", False, required) is None  # the server declared no task calls
