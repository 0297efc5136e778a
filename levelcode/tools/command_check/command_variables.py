"""Which environment variables, set for a command, change what it runs or loads, or where it reads
its settings: the assignments (`NAME=value cmd`, `export NAME=...`, `env NAME=...`) that flag.

Pure: judges variable names only. A GIT_* variable passes only when it is on a short list of
harmless ones; every other one can point git at other settings, programs or repositories.
"""

from __future__ import annotations

PURE = True

RUNS_OR_LOADS = frozenset(
    {"PATH", "BASH_ENV", "ENV", "PROMPT_COMMAND", "IFS", "SHELLOPTS", "BASHOPTS", "PS4", "SHELL"}
    | {"SSH_ASKPASS", "NODE_OPTIONS", "PERL5OPT", "RUBYOPT", "PYTHONSTARTUP", "PYTHONHOME"}
    | {"EDITOR", "VISUAL", "PAGER", "MANPAGER", "BROWSER", "LESSOPEN", "LESSCLOSE", "LESSKEY"}
    | {"LESSKEYIN", "LESSKEY_CONTENT", "MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS", "MAKEFILES"}
    | {"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "DOTNET_STARTUP_HOOKS", "ZDOTDIR"}
)
# where programs read their own settings (git: ~/.gitconfig, $XDG_CONFIG_HOME/git/config)
SETTINGS_HOMES = frozenset({"HOME", "XDG_CONFIG_HOME", "CURL_HOME", "WGETRC", "PIP_CONFIG_FILE"})
PACKAGE_SOURCES = frozenset(
    {"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL"}
    | {"UV_INDEX", "UV_DEFAULT_INDEX", "UV_FIND_LINKS", "UV_CONFIG_FILE"}
)
HARMLESS_GIT = frozenset(
    {"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME"}
    | {"GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE", "GIT_TERMINAL_PROMPT", "GIT_OPTIONAL_LOCKS"}
    | {"GIT_MERGE_AUTOEDIT", "GIT_FLUSH", "GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS"}
    | {"GIT_NOGLOB_PATHSPECS", "GIT_ICASE_PATHSPECS", "GIT_ADVICE", "GIT_PROGRESS_DELAY"}
)


def variable_problem(name: str) -> str | None:
    """Why setting `name` for a command needs a look, or None when it changes nothing that runs."""
    if name in RUNS_OR_LOADS or name.startswith(("LD_", "DYLD_")):
        return f"sets {name}, which changes what programs run or load"
    if name.startswith("GIT_") and name not in HARMLESS_GIT:
        return f"sets {name}, which changes what git runs, or which settings and repository it uses"
    if name.lower().startswith("npm_config_"):
        return f"sets {name}, which changes npm's settings (such as the shell that runs scripts)"
    if name in SETTINGS_HOMES:
        return f"sets {name}, which changes where programs read their settings from (as git's config)"
    if name in PACKAGE_SOURCES:
        return f"sets {name}, which changes where packages are downloaded from"
    return None
