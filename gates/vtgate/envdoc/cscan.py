"""Find environment-variable reads in C, C++ and CUDA source: ``getenv("X")``, ``std::getenv``,
``::getenv``, and ``secure_getenv``. A small lexer skips
comments and string literals (including C++ raw strings), so ``// getenv("X")`` and a string that
contains ``getenv("X")`` are not reads. Adjacent string literals concatenate (``"VT_" "X"``); an
argument that is not only string literals is a dynamic read with the literal prefix it starts with."""

from __future__ import annotations

import re

from vtgate.envdoc.model import EnvRead, FileScan

C_SUFFIXES = (
    ".c",
    ".h",
    ".cc",
    ".cpp",
    ".cxx",
    ".c++",
    ".hpp",
    ".hh",
    ".hxx",
    ".h++",
    ".cu",
    ".cuh",
    ".inl",
    ".ipp",
    ".tpp",
)
GETENV_NAMES = {"getenv", "secure_getenv"}
_DECLARATION_WORDS = {"const", "char", "wchar_t", "void", "unsigned", "signed", "struct"}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RAW_PREFIX = re.compile(r"(?:u8|u|U|L)?R$")
_STRING_PREFIX = re.compile(r"(?:u8|u|U|L)$")
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "0": "\0"}

# token kinds
IDENT, STRING, PUNCT = "ident", "string", "punct"


def tokenize_c(text: str) -> list[tuple[str, str, int]]:
    """Tokens ``(kind, text, line)`` of C-family source with comments dropped; a string token's text
    is its decoded value (escapes for the common cases). Numbers and character literals are PUNCT."""
    tokens: list[tuple[str, str, int]] = []
    i, n, line = 0, len(text), 1
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
        elif ch in " \t\r\f\v":
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            i = end
        elif ch == '"':
            start_line, start = line, i
            prev = tokens[-1] if tokens else None
            if prev and prev[0] == IDENT and _RAW_PREFIX.search(prev[1]) and _adjacent(text, i, prev[1]):
                tokens.pop()
                value, i = _raw_string(text, i)
            else:
                if (
                    prev
                    and prev[0] == IDENT
                    and _STRING_PREFIX.match(prev[1])
                    and _adjacent(text, i, prev[1])
                ):
                    tokens.pop()
                value, i = _quoted(text, i, '"')
            line += text.count("\n", start, i)
            tokens.append((STRING, value, start_line))
        elif ch == "'":
            _, i = _quoted(text, i, "'")
            tokens.append((PUNCT, "'", line))
        else:
            match = _IDENT.match(text, i)
            if match:
                tokens.append((IDENT, match.group(), line))
                i = match.end()
            elif text.startswith("::", i) or text.startswith("->", i):
                tokens.append((PUNCT, text[i : i + 2], line))
                i += 2
            else:
                tokens.append((PUNCT, ch, line))
                i += 1
    return tokens


def _adjacent(text: str, quote: int, ident: str) -> bool:
    return text[quote - len(ident) : quote] == ident


def _quoted(text: str, i: int, quote: str) -> tuple[str, int]:
    out: list[str] = []
    i += 1
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if nxt == "\n":
                i += 2
                continue
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
        elif ch == quote:
            return "".join(out), i + 1
        elif ch == "\n":  # unterminated literal: stop at the line end
            return "".join(out), i
        else:
            out.append(ch)
            i += 1
    return "".join(out), n


def _raw_string(text: str, i: int) -> tuple[str, int]:
    paren = text.find("(", i + 1)
    if paren < 0:
        return "", len(text)
    delimiter = text[i + 1 : paren]
    end = text.find(")" + delimiter + '"', paren + 1)
    if end < 0:
        return text[paren + 1 :], len(text)
    return text[paren + 1 : end], end + len(delimiter) + 2


def scan_c_text(text: str, relpath: str) -> FileScan:
    """Scan one C/C++/CUDA file's text for getenv-family reads."""
    result = FileScan(file=relpath, parsed=True)
    if "getenv" not in text:
        result.parsed = False
        return result
    tokens = tokenize_c(text)
    for index, (kind, value, line) in enumerate(tokens):
        if kind != IDENT or value not in GETENV_NAMES:
            continue
        if index + 1 >= len(tokens) or tokens[index + 1][1] != "(":
            continue
        before = tokens[index - 1] if index else None
        if before and before[0] == PUNCT and before[1] in (".", "->"):
            continue  # a member called getenv, not the C library's
        qualifier = tokens[index - 2] if before and before[1] == "::" and index >= 2 else None
        if qualifier and qualifier[0] == IDENT and qualifier[1] != "std":
            continue  # some_namespace::getenv, not the C library's
        cursor = index + 2
        if cursor < len(tokens) and tokens[cursor][0] == IDENT and tokens[cursor][1] in _DECLARATION_WORDS:
            continue  # a declaration: char *getenv(const char *name)
        literal: list[str] = []
        while cursor < len(tokens) and tokens[cursor][0] == STRING:
            literal.append(tokens[cursor][1])
            cursor += 1
        text_value = "".join(literal)
        closes = cursor < len(tokens) and tokens[cursor][1] == ")"
        form = f"{value} (C)"
        if qualifier:
            form = f"std::{value} (C++)" if qualifier[1] == "std" else f"::{value} (C++)"
        if literal and closes:
            result.reads.append(
                EnvRead(name=text_value, prefix=text_value, file=relpath, line=line, form=form)
            )
        else:
            result.reads.append(EnvRead(name=None, prefix=text_value, file=relpath, line=line, form=form))
    return result
