"""Splitting a bash command line into simple commands, for the command safety classifier.

Pure. Not a full bash parser: it follows enough of the grammar (quotes, escapes, operators,
redirections, here-documents, `$(...)`, backticks, `<(...)`) to find every command a line can
run, and reports whatever it cannot follow as a problem, which the classifier turns into a flag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PURE = True


@dataclass(frozen=True)
class Word:
    text: str  # quotes removed; expansions kept as written: "$HOME", "$(date)"
    dynamic: bool = False  # holds a $-expansion or substitution: its value is known only at run time
    pattern: bool = False  # holds an unquoted glob (* ? [) or brace list ({a,b} {1..3})
    quoted: bool = False  # some part was quoted or escaped


@dataclass(frozen=True)
class Op:
    text: str
    fd: str = ""  # the digits before a redirection: the "2" of "2>"


@dataclass(frozen=True)
class Redirect:
    op: str
    target: Word
    fd: str = ""
    heredoc: str | None = None  # the body of a here-document


@dataclass
class SimpleCommand:
    words: list[Word] = field(default_factory=list[Word])
    redirects: list[Redirect] = field(default_factory=list[Redirect])
    piped_in: bool = False  # stdin is the previous pipeline stage's output


@dataclass(frozen=True)
class ParsedScript:
    commands: tuple[SimpleCommand, ...]
    substitutions: tuple[str, ...]  # sources of every $(...), `...`, <(...), >(...), at any depth
    problems: tuple[str, ...]  # what could not be followed
    fed: tuple[str, ...] = ()  # the sources among them that read what is written to them: >(...)


MAX_NESTING = 8
REDIRECT_OPS = frozenset({"<", ">", ">>", ">|", "<>", "<&", ">&", "&>", "&>>", "<<", "<<-", "<<<"})
_CONTROL_OPS = ("&&", "||", "|&", ";;&", ";;", ";&", ";", "|", "&", "(", ")")
_OPERATORS = sorted(REDIRECT_OPS | set(_CONTROL_OPS), key=len, reverse=True)
_OPERATOR_CHARS = frozenset(";&|<>()")
_PARAMETER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]")
_ANSI_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)", re.S)
_ANSI_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_ANSI_SIMPLE |= {"v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def _ansi_escape(match: re.Match[str]) -> str:
    code = match.group(1)
    if code[0] in "xuU":
        value = int(code[1:], 16)
        return chr(value) if value <= 0x10FFFF else "\ufffd"
    if code[0].isdigit():
        return chr(int(code, 8))
    if code[0] == "c":
        return chr(ord(code[1]) & 0x1F)
    return _ANSI_SIMPLE.get(code, "\\" + code)


class _Lexer:
    """Characters to words and operators; collects substitutions and here-document bodies."""

    def __init__(self, source: str, depth: int = 0) -> None:
        self.src = source
        self.depth = depth  # how many ${...} this text sits inside
        self.pos = 0
        self.tokens: list[Word | Op] = []
        self.substitutions: list[str] = []
        self.fed: list[str] = []
        self.problems: list[str] = []
        self.commented = False  # a `#` comment was skipped
        self.heredocs: dict[int, str] = {}  # token index of a delimiter word -> the body
        self._pending: list[tuple[int, str, bool, bool]] = []  # index, delimiter, strip tabs, expands
        self._want_delimiter = False
        self._reset_word()

    def _reset_word(self) -> None:
        self._chars: list[str] = []
        self._started = self._dynamic = self._pattern = self._quoted = False
        self._braces = 0

    def run(self) -> None:
        while self.pos < len(self.src):
            self._step(self.src[self.pos])
        self._end_word()
        for _index, delimiter, _strip, _expands in self._pending:
            self.problems.append(f"here-document {delimiter!r} has no body")

    def _step(self, char: str) -> None:
        if char in " \t":
            self._end_word()
            self.pos += 1
        elif char == "\n":
            self._end_word()
            self.tokens.append(Op("\n"))
            self.pos += 1
            self._read_heredocs()
        elif char == "#" and not self._started:
            self.commented = True
            end = self.src.find("\n", self.pos)
            self.pos = len(self.src) if end == -1 else end
        elif char == "\\":
            self._escape()
        elif char == "'":
            self._single_quoted()
        elif char == '"':
            self.pos += 1
            self._double_quoted()
        elif char == "$":
            self._dollar(in_double=False)
        elif char == "`":
            self._backtick()
        elif char in "<>" and self.src.startswith("(", self.pos + 1):
            self._end_word()
            inner, end = self._balanced(self.pos + 1, "(", ")")
            self._substitution(inner, f"{char}({inner})", end)
            if char == ">":
                self.fed.append(inner)
        elif char in _OPERATOR_CHARS:
            self._operator()
        else:
            self._plain(char)

    def _add(self, text: str, *, quoted: bool = False) -> None:
        self._chars.append(text)
        self._started = True
        self._quoted = self._quoted or quoted

    def _plain(self, char: str) -> None:
        if char in "*?" or (char == "]" and "[" in self._chars):
            self._pattern = True
        elif char == "{":
            self._braces += 1
        elif char == "}" and self._braces:
            self._braces -= 1
        elif self._braces and (char == "," or (char == "." and self._chars[-1:] == ["."])):
            self._pattern = True
        self._add(char)
        self.pos += 1

    def _end_word(self) -> None:
        if not self._started:
            return
        word = Word("".join(self._chars), self._dynamic, self._pattern, self._quoted)
        self.tokens.append(word)
        if self._want_delimiter:
            strip = isinstance(op := self.tokens[-2], Op) and op.text == "<<-"
            self._pending.append((len(self.tokens) - 1, word.text, strip, not word.quoted))
            self._want_delimiter = False
        self._reset_word()

    def _operator(self) -> None:
        fd = ""
        digits = "".join(self._chars)
        if self.src[self.pos] in "<>" and digits.isdigit() and not (self._quoted or self._dynamic):
            fd = digits
            self._reset_word()
        else:
            self._end_word()
        op = next(candidate for candidate in _OPERATORS if self.src.startswith(candidate, self.pos))
        self.pos += len(op)
        self.tokens.append(Op(op, fd))
        self._want_delimiter = op in ("<<", "<<-")

    def _escape(self) -> None:
        following = self.src[self.pos + 1 : self.pos + 2]
        if following == "\n":
            self.pos += 2
        elif not following:
            self.problems.append("the command ends with a lone backslash")
            self.pos += 1
        else:
            self._add(following, quoted=True)
            self.pos += 2

    def _single_quoted(self) -> None:
        end = self.src.find("'", self.pos + 1)
        if end == -1:
            self.problems.append("unbalanced single quote")
            end = len(self.src)
        self._add(self.src[self.pos + 1 : end], quoted=True)
        self.pos = end + 1

    def _double_quoted(self) -> None:
        self._add("", quoted=True)
        while self.pos < len(self.src):
            char = self.src[self.pos]
            if char == '"':
                self.pos += 1
                return
            if char == "\\":
                following = self.src[self.pos + 1 : self.pos + 2]
                self._chars.append(following if following in '$`"\\' else "\\" + following)
                self.pos += 2
            elif char == "$":
                self._dollar(in_double=True)
            elif char == "`":
                self._backtick()
            else:
                self._chars.append(char)
                self.pos += 1
        self.problems.append("unbalanced double quote")

    def _dollar(self, *, in_double: bool) -> None:
        following = self.src[self.pos + 1 : self.pos + 2]
        if following == "'" and not in_double:
            self._ansi_c_quoted()
        elif following == '"' and not in_double:
            self.pos += 2
            self._double_quoted()
        elif following == "(":
            inner, end = self._balanced(self.pos + 1, "(", ")")
            self._substitution(inner, f"$({inner})", end)
        elif following == "{":
            inner, end = self._balanced(self.pos + 1, "{", "}")
            if self.depth >= MAX_NESTING:
                self.problems.append("${...} nested too deeply to follow")
            elif "$" in inner or "`" in inner or "(" in inner:
                nested = parse_script(inner, _depth=self.depth + 1)
                self.substitutions.extend(nested.substitutions)
                self.fed.extend(nested.fed)
                self.problems.extend(nested.problems)
            self._add("${" + inner + "}")
            self._dynamic = True
            self.pos = end
        elif match := _PARAMETER.match(self.src, self.pos + 1):
            self._add("$" + match.group())
            self._dynamic = True
            self.pos = match.end()
        else:
            self._add("$")
            self.pos += 1

    def _ansi_c_quoted(self) -> None:
        match = re.compile(r"\$'((?:[^'\\]|\\.)*)'", re.S).match(self.src, self.pos)
        if match is None:
            self.problems.append("unbalanced $'...' quote")
            self.pos = len(self.src)
            return
        self._add(_ANSI_ESCAPE.sub(_ansi_escape, match.group(1)), quoted=True)
        self.pos = match.end()

    def _backtick(self) -> None:
        match = re.compile(r"`((?:[^`\\]|\\.)*)`", re.S).match(self.src, self.pos)
        if match is None:
            self.problems.append("unbalanced backtick")
            self.pos = len(self.src)
            return
        inner = re.sub(r"\\([$`\\])", r"\1", match.group(1))
        self._substitution(inner, f"`{inner}`", match.end())

    def _substitution(self, inner: str, text: str, end: int) -> None:
        self.substitutions.append(inner)
        self._add(text)
        self._dynamic = True
        self.pos = end

    def _balanced(self, start: int, opening: str, closing: str) -> tuple[str, int]:
        """The text between the bracket at `start` and its partner, and the index after the partner."""
        depth, i = 1, start + 1
        while i < len(self.src):
            char = self.src[i]
            if char == "\\":
                i += 1
            elif char in "'\"`":
                close = self.src.find(char, i + 1)
                i = len(self.src) if close == -1 else close
            elif char == opening:
                depth += 1
            elif char == closing:
                depth -= 1
                if depth == 0:
                    return self.src[start + 1 : i], i + 1
            i += 1
        self.problems.append(f"unbalanced {opening}...{closing}")
        return self.src[start + 1 :], len(self.src)

    def _read_heredocs(self) -> None:
        for index, delimiter, strip, expands in self._pending:
            lines: list[str] = []
            while True:
                if self.pos >= len(self.src):
                    self.problems.append(f"here-document {delimiter!r} is not terminated")
                    break
                end = self.src.find("\n", self.pos)
                end = len(self.src) if end == -1 else end
                line, self.pos = self.src[self.pos : end], end + 1
                if (line.lstrip("\t") if strip else line) == delimiter:
                    break
                lines.append(line)
            body = "\n".join(lines)
            self.heredocs[index] = body
            if expands:
                self._scan_expansions(body)
        self._pending = []

    def _scan_expansions(self, text: str) -> None:
        """Substitutions in text that expands like a double-quoted string (an unquoted heredoc)."""
        scanner = _Lexer(text)
        while scanner.pos < len(text):
            char = text[scanner.pos]
            if char == "$":
                scanner._dollar(in_double=True)
            elif char == "`":
                scanner._backtick()
            else:
                scanner.pos += 2 if char == "\\" else 1
        self.substitutions += scanner.substitutions
        self.problems += scanner.problems


class _Grouper:
    """Tokens to simple commands: words, their redirections, and whether stdin is a pipe."""

    def __init__(self, heredocs: dict[int, str]) -> None:
        self.heredocs = heredocs
        self.commands: list[SimpleCommand] = []
        self.problems: list[str] = []
        self._current = SimpleCommand()
        self._redirect: Op | None = None
        self._depth = 0

    def feed(self, index: int, token: Word | Op) -> None:
        if isinstance(token, Word):
            if self._redirect is None:
                self._current.words.append(token)
            else:
                redirect = Redirect(self._redirect.text, token, self._redirect.fd, self.heredocs.get(index))
                self._current.redirects.append(redirect)
                self._redirect = None
            return
        if self._redirect is not None:
            self.problems.append(f"redirection {self._redirect.text!r} has no target")
            self._redirect = None
        if token.text in REDIRECT_OPS:
            self._redirect = token
            return
        if token.text == "(" and self._current.words:
            self.problems.append("defines a shell function (or has a stray '(')")
        self._flush(token.text)

    def _flush(self, op: str) -> None:
        current = self._current
        empty = not (current.words or current.redirects)
        if not empty:
            self.commands.append(current)
        piped = op in ("|", "|&") or (op == "(" and empty and current.piped_in)
        self._current = SimpleCommand(piped_in=piped)
        self._depth += {"(": 1, ")": -1}.get(op, 0)
        if self._depth < 0:
            self.problems.append("unbalanced ')'")
            self._depth = 0

    def finish(self) -> None:
        if self._redirect is not None:
            self.problems.append(f"redirection {self._redirect.text!r} has no target")
        self._flush("\n")
        if self._depth:
            self.problems.append("unbalanced '('")


def parse_script(source: str, *, _depth: int = 0) -> ParsedScript:
    lexer = _Lexer(source, _depth)
    lexer.run()
    grouper = _Grouper(lexer.heredocs)
    for index, token in enumerate(lexer.tokens):
        grouper.feed(index, token)
    grouper.finish()
    problems = (*lexer.problems, *grouper.problems)
    return ParsedScript(tuple(grouper.commands), tuple(lexer.substitutions), problems, tuple(lexer.fed))


def simple_words(source: str) -> tuple[Word, ...] | None:
    """The words of `source` when it is one simple command made of words alone; None when it has
    anything else — an operator of any kind (`;`, `&&`, `||`, `|`, `&`, a newline, `(`, `)`), a
    redirection, a here-document, a substitution, a comment, or something the lexer cannot follow.
    For saved command rules, which may only ever match a line that does no more than its words say."""
    lexer = _Lexer(source)
    lexer.run()
    if lexer.problems or lexer.substitutions or lexer.heredocs or lexer.commented or not lexer.tokens:
        return None
    if not all(isinstance(token, Word) for token in lexer.tokens):
        return None
    return tuple(token for token in lexer.tokens if isinstance(token, Word))
