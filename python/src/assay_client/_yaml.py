"""YAML for the originals' config files, without a dependency.

Heretix, RQEval and cross-judge keep their configs and prompts in YAML. PyYAML is used when it is
importable (most machines have it); otherwise `parse_subset` reads the block-YAML those files are
written in: mappings, lists, quoted and plain scalars (ints, floats, bools, null, dates, as PyYAML's
YAML 1.1 resolver reads them), comments, `|`/`>` block scalars and single-line or multi-line flow
collections (`[a, b]`, `{k: v}`). Anything else (anchors, tags, multi-line plain scalars, several
documents…) raises `YamlError` naming the line, rather than being read differently from PyYAML.
"""

from __future__ import annotations

import datetime
import re
from typing import Any, Callable, Dict, List, Optional, Tuple

__all__ = ["YamlError", "load_yaml", "parse_subset"]


class YamlError(ValueError):
    """A document the reader cannot read; `line` is 1-based (0 when unknown)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line


def load_yaml(text: str) -> Any:
    """Read one YAML document: PyYAML's `safe_load` when installed, else `parse_subset`."""
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:
        return parse_subset(text)
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:  # one error type for callers, whichever reader ran
        mark = getattr(e, "problem_mark", None)
        raise YamlError(mark.line + 1 if mark is not None else 0, str(e)) from e


def parse_subset(text: str) -> Any:
    """Read one document of the block-YAML subset described above, as PyYAML's safe_load would."""
    return _Parser(text).document()


# --- scalars: PyYAML's YAML 1.1 implicit resolvers, restricted to what configs use -------------

_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = re.compile(r"^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$")
_INT = re.compile(
    r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"
    r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$"
)
_FLOAT = re.compile(
    r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_DATE = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})$")
_TIMESTAMP = re.compile(r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:")
_TRUE = {"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"}


def _sexagesimal(body: str, cast: Callable[[str], Any]) -> Any:
    value: Any = 0
    for part in body.split(":"):
        value = value * 60 + cast(part)
    return value


def _resolve_int(s: str) -> int:
    s = s.replace("_", "")
    sign = -1 if s.startswith("-") else 1
    if s[:1] in "+-":
        s = s[1:]
    if s == "0":
        return 0
    if s.startswith("0b"):
        return sign * int(s[2:], 2)
    if s.startswith("0x"):
        return sign * int(s[2:], 16)
    if s.startswith("0") and ":" not in s:
        return sign * int(s, 8)
    if ":" in s:
        return sign * _sexagesimal(s, int)
    return sign * int(s)


def _resolve_float(s: str) -> float:
    s = s.replace("_", "").lower()
    sign = -1.0 if s.startswith("-") else 1.0
    if s[:1] in "+-":
        s = s[1:]
    if s == ".inf":
        return sign * float("inf")
    if s == ".nan":
        return float("nan")
    if ":" in s:
        return sign * _sexagesimal(s, float)
    return sign * float(s)


def _resolve_plain(s: str, line: int) -> Any:
    if _NULL.match(s):
        return None
    if _BOOL.match(s):
        return s in _TRUE
    if _INT.match(s):
        return _resolve_int(s)
    if _FLOAT.match(s):
        return _resolve_float(s)
    m = _DATE.match(s)
    if m:
        return datetime.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    if _TIMESTAMP.match(s):
        raise YamlError(line, f"timestamps are not supported: {s!r}")
    return s


_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
    "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
    "L": "\u2028", "P": "\u2029",
}  # fmt: skip
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


def _scan_quoted(s: str, i: int, line: int) -> Tuple[str, int]:
    """The quoted scalar starting at s[i]; returns its value and the index after the closing quote."""
    quote = s[i]
    out: List[str] = []
    j = i + 1
    while j < len(s):
        c = s[j]
        if quote == "'":
            if c == "'":
                if s[j + 1 : j + 2] == "'":
                    out.append("'")
                    j += 2
                    continue
                return "".join(out), j + 1
            out.append(c)
            j += 1
            continue
        if c == '"':
            return "".join(out), j + 1
        if c == "\\":
            e = s[j + 1 : j + 2]
            if e in _ESCAPES:
                out.append(_ESCAPES[e])
                j += 2
            elif e in _HEX_ESCAPES:
                n = _HEX_ESCAPES[e]
                digits = s[j + 2 : j + 2 + n]
                if len(digits) != n or not all(ch in "0123456789abcdefABCDEF" for ch in digits):
                    raise YamlError(line, f"bad escape \\{e}{digits}")
                out.append(chr(int(digits, 16)))
                j += 2 + n
            else:
                raise YamlError(line, f"unknown escape \\{e}" if e else "a quoted scalar may not span lines")
            continue
        out.append(c)
        j += 1
    raise YamlError(line, "a quoted scalar must close on its own line (multi-line quoted scalars are not supported)")


def _strip_comment(s: str, line: int) -> str:
    """`s` without a trailing `# comment` (a `#` at the start or after a blank), quotes respected."""
    i = 0
    while i < len(s):
        c = s[i]
        if c in "'\"" and (i == 0 or s[i - 1] in " \t[{,:-?"):
            _, i = _scan_quoted(s, i, line)
            continue
        if c == "#" and (i == 0 or s[i - 1] in " \t"):
            return s[:i].rstrip()
        i += 1
    return s.rstrip()


def _check_plain(s: str, line: int) -> None:
    if s[:1] in ("&", "*", "!", "%", "@", "`", "?") or s in ("|", ">"):
        raise YamlError(line, f"anchors, aliases, tags and reserved indicators are not supported: {s!r}")
    if s.startswith(("- ", ": ")) or s in ("-", ":"):
        raise YamlError(line, f"unexpected {s[0]!r}")
    if ": " in s or s.endswith(":"):
        raise YamlError(line, f"a mapping is not allowed here: {s!r}")


def _find_colon(s: str, line: int) -> int:
    """Index of the `:` that ends a block mapping key in `s` (`key: v` or `key:`), or -1."""
    i = 0
    if s[:1] in "'\"":
        _, i = _scan_quoted(s, 0, line)
        rest = s[i:].lstrip(" ")
        if rest.startswith(":") and (len(rest) == 1 or rest[1] in " \t"):
            return len(s) - len(rest)
        return -1
    if s[:1] in "[{":
        return -1
    while i < len(s):
        if s[i] == ":" and (i + 1 == len(s) or s[i + 1] in " \t"):
            return i
        if s[i] == "#" and i > 0 and s[i - 1] in " \t":
            return -1
        i += 1
    return -1


# --- flow collections --------------------------------------------------------------------------


class _Flow:
    """A recursive-descent reader of one flow collection (`[..]` or `{..}`) in `s`."""

    def __init__(self, s: str, line: int) -> None:
        self.s: str = s
        self.i: int = 0
        self.line: int = line

    def skip_blanks(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in " \t\n":
            self.i += 1

    def value(self) -> Any:
        self.skip_blanks()
        c = self.s[self.i : self.i + 1]
        if c == "[":
            return self._seq()
        if c == "{":
            return self._map()
        if c in ("'", '"'):
            v, self.i = _scan_quoted(self.s, self.i, self.line)
            return v
        return self._plain()

    def _plain(self) -> Any:
        start = self.i
        while self.i < len(self.s):
            c = self.s[self.i]
            if c in ",[]{}" or (c == ":" and self.s[self.i + 1 : self.i + 2] in (" ", "\t", "\n", ",", "]", "}", "")):
                break
            if c == "#" and self.i > 0 and self.s[self.i - 1] in " \t":
                raise YamlError(self.line, "comments inside a flow collection are not supported")
            self.i += 1
        text = " ".join(self.s[start : self.i].split())
        if not text:
            raise YamlError(self.line, f"expected a value at {self.s[start:start + 10]!r}")
        _check_plain(text, self.line)
        return _resolve_plain(text, self.line)

    def _seq(self) -> List[Any]:
        self.i += 1
        out: List[Any] = []
        while True:
            self.skip_blanks()
            if self.s[self.i : self.i + 1] == "]":
                self.i += 1
                return out
            out.append(self.value())
            self.skip_blanks()
            c = self.s[self.i : self.i + 1]
            if c == ",":
                self.i += 1
            elif c != "]":
                raise YamlError(self.line, f"expected ',' or ']' in a flow list, found {c or 'the end'!r}")

    def _map(self) -> Dict[Any, Any]:
        self.i += 1
        out: Dict[Any, Any] = {}
        while True:
            self.skip_blanks()
            if self.s[self.i : self.i + 1] == "}":
                self.i += 1
                return out
            key = self.value()
            self.skip_blanks()
            if self.s[self.i : self.i + 1] == ":":
                self.i += 1
                self.skip_blanks()
                value = None if self.s[self.i : self.i + 1] in (",", "}") else self.value()
            else:
                value = None
            try:
                out[key] = value
            except TypeError:
                raise YamlError(self.line, "a collection cannot be a mapping key") from None
            self.skip_blanks()
            c = self.s[self.i : self.i + 1]
            if c == ",":
                self.i += 1
            elif c != "}":
                raise YamlError(self.line, f"expected ',' or '}}' in a flow mapping, found {c or 'the end'!r}")


def _flow_balanced(s: str) -> bool:
    depth, i = 0, 0
    while i < len(s):
        c = s[i]
        if c in "'\"":
            try:
                _, i = _scan_quoted(s, i, 0)
            except YamlError:
                return False
            continue
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        i += 1
    return depth <= 0


# --- block structure ---------------------------------------------------------------------------


class _Parser:
    def __init__(self, text: str) -> None:
        if text.startswith("\ufeff"):
            text = text[1:]
        self.lines: List[str] = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        self.i: int = 0

    # A line that holds structure: not blank, not only a comment.
    def _significant(self, i: int) -> bool:
        s = self.lines[i].strip()
        return s != "" and not s.startswith("#")

    def _skip(self) -> None:
        while self.i < len(self.lines) and not self._significant(self.i):
            self.i += 1

    # '---' or '...' at column 0 ends the document's nodes, whatever their indentation.
    def _at_marker(self) -> bool:
        return self.i < len(self.lines) and re.match(r"^(?:---|\.\.\.)(?:\s|$)", self.lines[self.i]) is not None

    def _indent(self, i: int) -> int:
        raw = self.lines[i]
        body = raw.lstrip(" ")
        if body.startswith("\t"):
            raise YamlError(i + 1, "tabs may not indent YAML")
        return len(raw) - len(body)

    def document(self) -> Any:
        self._skip()
        if self.i < len(self.lines) and self.lines[self.i].startswith("%"):
            raise YamlError(self.i + 1, "directives are not supported")
        if self.i < len(self.lines) and re.match(r"^---(?:\s|$)", self.lines[self.i]):
            rest = _strip_comment(self.lines[self.i][3:], self.i + 1).strip()
            if rest:
                raise YamlError(self.i + 1, "content on the '---' line is not supported")
            self.i += 1
            self._skip()
        if self.i >= len(self.lines):
            return None
        value = self._block(self._indent(self.i))
        self._skip()
        if self.i < len(self.lines):
            s = self.lines[self.i]
            if re.match(r"^\.\.\.(?:\s|$)", s):
                self.i += 1
                self._skip()
                if self.i >= len(self.lines):
                    return value
            elif re.match(r"^---(?:\s|$)", s):
                raise YamlError(self.i + 1, "several documents in one file are not supported")
            raise YamlError(self.i + 1, "unexpected content (is its indentation right?)")
        return value

    def _block(self, indent: int) -> Any:
        """The block node whose first line is self.i, at column `indent`."""
        lineno = self.i + 1
        body = _strip_comment(self.lines[self.i][indent:], lineno)
        if body == "-" or body.startswith("- "):
            return self._seq(indent)
        if _find_colon(body, lineno) >= 0:
            return self._map(indent)
        # A lone scalar or flow collection as the whole node.
        self.i += 1
        value = self._inline(body, lineno, indent)
        return value

    def _seq(self, indent: int) -> List[Any]:
        out: List[Any] = []
        while True:
            self._skip()
            if self.i >= len(self.lines) or self._at_marker() or self._indent(self.i) != indent:
                break
            lineno = self.i + 1
            body = _strip_comment(self.lines[self.i][indent:], lineno)
            if not (body == "-" or body.startswith("- ")):
                break
            rest = body[1:].lstrip(" ")
            if rest == "":
                self.i += 1
                out.append(self._nested(indent, allow_same_indent_seq=False))
                continue
            # "- key: v" / "- - x": the item is a block node starting at the column after "- ".
            col = indent + len(body) - len(rest)
            if rest == "-" or rest.startswith("- ") or _find_colon(rest, lineno) >= 0:
                self.lines[self.i] = " " * col + self.lines[self.i][col:]
                out.append(self._block(col))
            else:
                self.i += 1
                out.append(self._inline(rest, lineno, indent))
        if self.i < len(self.lines) and self._significant(self.i) and self._indent(self.i) > indent:
            raise YamlError(self.i + 1, "unexpected indentation")
        return out

    def _map(self, indent: int) -> Dict[Any, Any]:
        out: Dict[Any, Any] = {}
        while True:
            self._skip()
            if self.i >= len(self.lines) or self._at_marker() or self._indent(self.i) != indent:
                break
            lineno = self.i + 1
            body = _strip_comment(self.lines[self.i][indent:], lineno)
            if body == "-" or body.startswith("- "):
                break
            colon = _find_colon(body, lineno)
            if colon < 0:
                raise YamlError(lineno, f"expected 'key: value', found {body!r}")
            key_text = body[:colon].rstrip()
            if key_text[:1] in "'\"":
                key: Any = _scan_quoted(key_text, 0, lineno)[0]
            else:
                if key_text.startswith("? "):
                    raise YamlError(lineno, "complex mapping keys are not supported")
                _check_plain(key_text, lineno)
                key = _resolve_plain(key_text, lineno)
            rest = body[colon + 1 :].strip()
            self.i += 1
            if rest == "":
                out[key] = self._nested(indent, allow_same_indent_seq=True)
            else:
                out[key] = self._inline(rest, lineno, indent)
        if self.i < len(self.lines) and self._significant(self.i) and self._indent(self.i) > indent:
            raise YamlError(self.i + 1, "unexpected indentation")
        return out

    def _nested(self, indent: int, allow_same_indent_seq: bool) -> Any:
        """The value of a key or '-' with nothing after it: a deeper block, a same-column list, or null."""
        self._skip()
        if self.i >= len(self.lines):
            return None
        child = self._indent(self.i)
        if child > indent:
            return self._block(child)
        if allow_same_indent_seq and child == indent:
            body = _strip_comment(self.lines[self.i][indent:], self.i + 1)
            if body == "-" or body.startswith("- "):
                return self._seq(indent)
        return None

    def _inline(self, rest: str, lineno: int, indent: int) -> Any:
        """A value that starts on its key's (or dash's) line: flow, quoted, block scalar or plain."""
        c = rest[:1]
        if c in "[{":
            text = rest
            # A flow collection may continue on following lines until its brackets balance.
            while not _flow_balanced(text):
                if self.i >= len(self.lines):
                    raise YamlError(lineno, "unclosed flow collection")
                text += "\n" + _strip_comment(self.lines[self.i], self.i + 1)
                self.i += 1
            flow = _Flow(text, lineno)
            value = flow.value()
            flow.skip_blanks()
            if flow.i != len(text):
                raise YamlError(lineno, f"unexpected text after a flow collection: {text[flow.i:]!r}")
            return value
        if c in "'\"":
            value, end = _scan_quoted(rest, 0, lineno)
            if rest[end:].strip():
                raise YamlError(lineno, f"unexpected text after a quoted scalar: {rest[end:].strip()!r}")
            self._no_continuation(indent)
            return value
        if c in "|>":
            return self._block_scalar(rest, lineno, indent)
        _check_plain(rest, lineno)
        self._no_continuation(indent)
        return _resolve_plain(rest, lineno)

    def _no_continuation(self, indent: int) -> None:
        j = self.i
        while j < len(self.lines) and not self._significant(j):
            j += 1
        if j < len(self.lines) and self._indent(j) > indent:
            raise YamlError(j + 1, "a scalar continued on the next line is not supported (use | or >, or quote it)")

    def _block_scalar(self, header: str, lineno: int, indent: int) -> str:
        m = re.match(r"^([|>])([-+]?)([1-9]?)([-+]?)$", header)
        if not m or (m.group(2) and m.group(4)):
            raise YamlError(lineno, f"bad block scalar header {header!r}")
        folded = m.group(1) == ">"
        chomp = m.group(2) or m.group(4)
        explicit = int(m.group(3)) if m.group(3) else 0
        raw: List[str] = []
        while self.i < len(self.lines):
            s = self.lines[self.i]
            if s.strip() == "":
                raw.append(s)
                self.i += 1
                continue
            if len(s) - len(s.lstrip(" ")) <= indent:
                break
            raw.append(s)
            self.i += 1
        if explicit:
            col = indent + explicit
        else:
            firsts = [len(s) - len(s.lstrip(" ")) for s in raw if s.strip() != ""]
            col = firsts[0] if firsts else indent + 1
            lead = [len(s) for s in raw[: next((k for k, s in enumerate(raw) if s.strip()), len(raw))]]
            if any(n > col for n in lead):
                raise YamlError(lineno, "leading blank lines are more indented than the block's text")
        lines: List[str] = []
        for k, s in enumerate(raw):
            if s.strip() == "":
                lines.append(s[col:] if len(s) > col else "")
            elif len(s) - len(s.lstrip(" ")) < col:
                raise YamlError(lineno + 1 + k, "a block scalar's line is less indented than its first line")
            else:
                lines.append(s[col:])
        # Trailing blank lines are governed by chomping, not content.
        end = len(lines)
        while end > 0 and lines[end - 1] == "" and (raw[end - 1].strip() == ""):
            end -= 1
        content, trailing = lines[:end], len(lines) - end
        if not content:
            return "\n" * trailing if chomp == "+" else ""
        text = _fold(content) if folded else "\n".join(content)
        if chomp == "-":
            return text
        if chomp == "+":
            return text + "\n" + "\n" * trailing
        return text + "\n"


def _fold(lines: List[str]) -> str:
    """Join a `>` block's lines: a single break becomes a space, n blank lines become n breaks,
    and breaks next to more-indented lines are kept (YAML 1.1 folding, as PyYAML does it)."""
    out = ""
    prev: Optional[str] = None
    blanks = 0
    for s in lines:
        if s == "":
            blanks += 1
            continue
        if prev is None:
            out += "\n" * blanks + s
        elif s[:1] in (" ", "\t") or prev[:1] in (" ", "\t"):
            out += "\n" * (blanks + 1) + s
        else:
            out += (" " if blanks == 0 else "\n" * blanks) + s
        prev, blanks = s, 0
    return out
