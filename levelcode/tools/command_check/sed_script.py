"""Reading a sed script command by command, to find the commands that run programs (`e`, the `e`
flag of `s`) or write files (`w`, `W`, the `w` flag of `s`).

Pure. Follows GNU sed's grammar: addresses, `!`, blocks, `s` and `y` with any delimiter and
bracket expressions, text of `a`/`i`/`c`, labels, file names. Anything it does not recognise is a
problem, so an unreadable script flags instead of passing.
"""

from __future__ import annotations

PURE = True

_SIMPLE = frozenset("{}=dDgGhHnNpPxzF")  # commands without arguments
_NUMBERED = frozenset("qQlL")  # commands with an optional number
_TO_LINE_END = frozenset("rR")  # a file name to the end of the line: reading is harmless
_LABELLED = frozenset(":btTv")
_TEXT = frozenset("aic")
_RUNS_OR_WRITES = "the sed script runs commands or writes files (e, w, W)"
_UNREADABLE = "the sed script cannot be read command by command"


class _SedReader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def skip(self, chars: str) -> None:
        while self.peek() and self.peek() in chars:
            self.pos += 1

    def to(self, stops: str) -> None:
        while self.peek() and self.peek() not in stops:
            self.pos += 1

    def regex(self, delimiter: str) -> bool:
        """Past a regular expression ended by `delimiter`; False when it never ends."""
        while (char := self.peek()) and char not in (delimiter, "\n"):
            if char == "\\":
                self.pos += 2
            elif char == "[":
                self.bracket()
            else:
                self.pos += 1
        self.pos += 1
        return char == delimiter

    def bracket(self) -> None:
        self.pos += 1
        if self.peek() == "^":
            self.pos += 1
        if self.peek() == "]":
            self.pos += 1
        while (char := self.peek()) and char not in "]\n":
            closing = {"[:": ":]", "[.": ".]", "[=": "=]"}.get(self.text[self.pos : self.pos + 2])
            found = self.text.find(closing, self.pos + 2) if closing else -1
            self.pos = found + 2 if found != -1 else self.pos + 1
        self.pos += 1

    def replacement(self, delimiter: str) -> bool:
        while (char := self.peek()) and char != delimiter:
            if char == "\n":
                return False
            self.pos += 2 if char == "\\" else 1
        self.pos += 1
        return char == delimiter

    def address(self) -> bool:
        char = self.peek()
        if char.isdigit():
            self.skip("0123456789")
            if self.peek() == "~":
                self.pos += 1
                self.skip("0123456789")
        elif char == "$":
            self.pos += 1
        elif char in ("/", "\\"):
            if char == "\\":
                self.pos += 1
            delimiter = self.peek()
            self.pos += 1
            if not delimiter or not self.regex(delimiter):
                return False
            self.skip("IM")
        return True

    def addresses(self) -> bool:
        if not self.address():
            return False
        if self.peek() == ",":
            self.pos += 1
            self.skip(" \t")
            if self.peek() in ("+", "~"):
                self.pos += 1
                self.skip("0123456789")
            elif not self.address():
                return False
        self.skip(" \t")
        if self.peek() == "!":
            self.pos += 1
            self.skip(" \t!")
        return True


def sed_script_problem(script: str) -> str | None:
    """Why the sed script needs a look, or None when it only edits the text passing through."""
    reader = _SedReader(script)
    while True:
        reader.skip(" \t\n;")
        if not reader.peek():
            return None
        if reader.peek() == "#":
            reader.to("\n")
            continue
        if not reader.addresses():
            return _UNREADABLE
        command = reader.peek()
        reader.pos += 1
        problem = _command(reader, command)
        if problem is not None:
            return problem


def _command(reader: _SedReader, command: str) -> str | None:
    if command in "ewW":
        return _RUNS_OR_WRITES
    if command in _SIMPLE:
        return None
    if command in _NUMBERED:
        reader.skip(" \t0123456789")
    elif command in _TO_LINE_END or command in _TEXT:
        _text(reader, command)
    elif command in _LABELLED:
        reader.to(";\n")
    elif command in ("s", "y"):
        return _substitution(reader, command)
    else:
        return f"the sed script uses a command the check does not know ({command!r})"
    return None


def _text(reader: _SedReader, command: str) -> None:
    """`a text`, `a\\` and continued lines, `r FILE`: to the end of the (continued) line."""
    while True:
        reader.to("\n")
        line = reader.text[: reader.pos]
        if command in _TO_LINE_END or not line.endswith("\\") or not reader.peek():
            return
        reader.pos += 1


def _substitution(reader: _SedReader, command: str) -> str | None:
    delimiter = reader.peek()
    reader.pos += 1
    if not delimiter or delimiter in "\n\\":
        return _UNREADABLE
    read_first = reader.regex if command == "s" else reader.replacement
    if not read_first(delimiter) or not reader.replacement(delimiter):
        return _UNREADABLE
    if command == "y":
        return None
    while (flag := reader.peek()) and flag in "gpiImMe0123456789w":
        if flag in "ew":
            return _RUNS_OR_WRITES
        reader.pos += 1
    return None if reader.peek() in ("", " ", "\t", "\n", ";", "}", "#") else _UNREADABLE
