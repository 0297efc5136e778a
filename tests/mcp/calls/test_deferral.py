"""Deferred tool loading, pure: when tools are deferred, what the index says (a line per server,
never one per tool), and how a search ranks. The setting that decides it is parsed strictly.

Load-bearing directions: a server marked `alwaysLoad` is never deferred, and a search finds a tool
by the words of its name before the words of others' descriptions; nothing matches nothing."""

from __future__ import annotations

from typing import Any

import pytest

from levelcode.core.token_estimate import estimate_tokens, tool_tokens
from levelcode.mcp.calls.catalog import build_catalog
from levelcode.mcp.calls.deferral import (
    TOOL_SEARCH_NAME,
    ToolSearchPolicy,
    plan_deferral,
    rank_tools,
    search_result_text,
    server_purpose,
    words,
)
from levelcode.policy.settings_keys import parse_tool_search


def _tool(name: str, description: str = "", **schema: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": description or f"does {name}",
        "inputSchema": {"type": "object", "properties": schema},
    }


GITHUB = [
    _tool("create_issue", "Create a new issue in a GitHub repository."),
    _tool("list_pull_requests", "List pull requests of a repository."),
    _tool("get_file_contents", "Get the contents of a file or directory from a repository."),
    _tool("search_code", "Search for code across GitHub repositories."),
]
BROWSER = [
    _tool("navigate_page", "Go to a URL in the selected page."),
    _tool("take_screenshot", "Take a screenshot of the page or an element."),
    _tool("list_console_messages", "List all console messages of the page, such as issues and errors."),
]
CATALOG = build_catalog([("github", GITHUB), ("browser", BROWSER), ("time", [_tool("get_current_time")])])


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, ("auto", 0.10)),
        ("auto", ("auto", 0.10)),
        ("auto:5", ("auto", 0.05)),
        ("auto:0", ("auto", 0.0)),
        ("always", ("always", 0.10)),
        ("never", ("never", 0.10)),
    ],
)
def test_the_setting_parses(value: object, expected: tuple[str, float]) -> None:
    assert parse_tool_search(value) == expected


@pytest.mark.parametrize("value", ["sometimes", "auto:", "auto:x", "auto:101", "auto:-1", 10, True, {}])
def test_a_bad_setting_says_what_is_expected(value: object) -> None:
    problem = parse_tool_search(value)
    assert isinstance(problem, str)
    assert '"auto:N"' in problem


def test_under_the_budget_everything_is_loaded_and_there_is_no_search() -> None:
    total = sum(tool_tokens(t) for t in CATALOG.tools)
    plan = plan_deferral(CATALOG, ToolSearchPolicy("auto", budget_tokens=total))
    assert plan.search is None
    assert plan.loaded == CATALOG.tools
    assert plan.deferred == ()


def test_over_the_budget_every_server_is_deferred_behind_one_search_tool() -> None:
    total = sum(tool_tokens(t) for t in CATALOG.tools)
    plan = plan_deferral(CATALOG, ToolSearchPolicy("auto", budget_tokens=total - 1))
    assert plan.search is not None
    assert plan.search.name == TOOL_SEARCH_NAME
    assert plan.search.input_schema["required"] == ["query"]
    assert plan.loaded == ()
    assert [t.name for t in plan.deferred] == [t.name for t in CATALOG.tools]
    assert plan.deferred_counts == {"github": 4, "browser": 3, "time": 1}


def test_always_load_servers_stay_loaded_and_never_means_never() -> None:
    plan = plan_deferral(CATALOG, ToolSearchPolicy("always"), always_load={"time"})
    assert [t.name for t in plan.loaded] == ["time__get_current_time"]
    assert "time__get_current_time" not in {t.name for t in plan.deferred}
    assert "- time" not in (plan.search.description if plan.search else "")
    everything = plan_deferral(CATALOG, ToolSearchPolicy("always"), always_load={"github", "browser", "time"})
    assert everything.search is None
    assert plan_deferral(CATALOG, ToolSearchPolicy("never", budget_tokens=0)).search is None


def test_the_index_has_one_line_per_server_whatever_the_number_of_tools() -> None:
    many = build_catalog(
        [(f"server{s}", [_tool(f"tool_{i}", "x" * 300) for i in range(100)]) for s in range(20)]
    )
    plan = plan_deferral(many, ToolSearchPolicy("always"))
    assert plan.search is not None
    lines = [line for line in plan.search.description.splitlines() if line.startswith("- ")]
    assert len(lines) == 20
    assert lines[0] == "- server0: 100 tools — e.g. tool_0, tool_1, tool_2, tool_3, …"
    assert tool_tokens(plan.search) < 1_000  # 2,000 tools behind it, ~160,000 tokens of definitions


def test_a_servers_purpose_comes_from_its_own_words_capped_on_one_line() -> None:
    plan = plan_deferral(
        CATALOG, ToolSearchPolicy("always"), purposes={"github": "Work with GitHub: issues,\nPRs and code."}
    )
    assert plan.search is not None
    assert (
        "- github: 4 tools — Work with GitHub: issues, PRs and code. (e.g. create_issue,"
        in plan.search.description
    )
    assert server_purpose("Use this server to read mail. It also sends it.", "mail") == (
        "Use this server to read mail."
    )
    assert server_purpose(None, "Notion API") == "Notion API"
    assert len(server_purpose("x" * 5000, None)) == 100
    assert server_purpose("a\x1b[2Jb\u202ec", None) == "a [2Jb c"


def test_words_split_names_and_prose_alike() -> None:
    assert words("getFileContents") == ["get", "file", "content"]
    assert words("get_file-contents") == ["get", "file", "content"]
    assert words("Lists the Issues") == ["list", "the", "issue"]


@pytest.mark.parametrize(
    ("query", "best"),
    [
        ("create github issue", "github__create_issue"),
        ("screenshot", "browser__take_screenshot"),
        ("read a file from the repository", "github__get_file_contents"),
        ("pull requests", "github__list_pull_requests"),
        ("console errors", "browser__list_console_messages"),
        ("what time is it", "time__get_current_time"),
        ("navig", "browser__navigate_page"),  # a prefix of a word
    ],
)
def test_a_search_ranks_by_names_and_descriptions(query: str, best: str) -> None:
    found = rank_tools(query, CATALOG.tools, CATALOG)
    assert found
    assert found[0].name == best


def test_a_word_in_a_name_outranks_the_same_word_in_another_tools_description() -> None:
    catalog = build_catalog(
        [
            ("git", [_tool("list_refs", "Lists refs: every branch, and the branch checked out.")]),
            ("vcs", [_tool("delete_branch", "Removes it.")]),
        ]
    )
    found = rank_tools("branch", catalog.tools, catalog)
    assert [t.name for t in found] == ["vcs__delete_branch", "git__list_refs"]


def test_exact_names_are_found_all_together() -> None:
    found = rank_tools("github__search_code, take_screenshot", CATALOG.tools, CATALOG)
    assert [t.name for t in found] == ["github__search_code", "browser__take_screenshot"]
    assert [t.name for t in rank_tools("select:time__get_current_time", CATALOG.tools, CATALOG)] == [
        "time__get_current_time"
    ]


def test_nothing_matches_nothing_and_results_are_bounded() -> None:
    assert rank_tools("zzz qqq", CATALOG.tools, CATALOG) == []
    assert rank_tools("   ", CATALOG.tools, CATALOG) == []
    assert len(rank_tools("a the of page repository", CATALOG.tools, CATALOG)) <= 5
    assert "No tool behind the search matches 'zzz'" in search_result_text("zzz", [])


def test_the_result_text_names_each_find_with_a_capped_description() -> None:
    found = rank_tools("screenshot", CATALOG.tools, CATALOG)[:1]
    text = search_result_text("screenshot", found)
    assert text.startswith("Found 1 tool; they are loaded now and can be called:")
    assert "- browser__take_screenshot: Take a screenshot of the page or an element." in text
    assert estimate_tokens(search_result_text("x", [CATALOG.tools[0]] * 5)) < 400
