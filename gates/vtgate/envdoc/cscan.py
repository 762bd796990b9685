"""Find environment-variable reads in C, C++ and CUDA source: ``getenv("X")``, ``std::getenv``,
``::getenv``, ``secure_getenv`` and calls of configured wrappers (``vt::env_flag("X", 0)``). A small
lexer skips comments and string literals (including C++ raw strings), so ``// getenv("X")`` and a
string that contains ``getenv("X")`` are not reads. Adjacent string literals concatenate
(``"VT_" "X"``); an argument that is not only string literals is a dynamic read with the literal
prefix it starts with."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from vtgate.envdoc.model import EnvRead, Expr, FileScan, WrapperSpec
from vtgate.envdoc.pyscan import make_reads

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
    ".m",
    ".mm",
)
GETENV_NAMES = {"getenv", "secure_getenv"}
_DECLARATION_WORDS = {"const", "char", "wchar_t", "void", "unsigned", "signed", "struct"}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RAW_PREFIX = re.compile(r"(?:u8|u|U|L)?R$")
_STRING_PREFIX = re.compile(r"(?:u8|u|U|L)$")
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "0": "\0"}

# token kinds
IDENT, STRING, NUMBER, PUNCT = "ident", "string", "number", "punct"
_NUMBER = re.compile(r"(?:\d|\.\d)[\w.']*")


def tokenize_c(text: str) -> list[tuple[str, str, int]]:
    """Tokens ``(kind, text, line)`` of C-family source with comments dropped; a string token's text
    is its decoded value (escapes for the common cases); character literals are PUNCT."""
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
            number = None if match else _NUMBER.match(text, i)
            if match:
                tokens.append((IDENT, match.group(), line))
                i = match.end()
            elif number:
                tokens.append((NUMBER, number.group(), line))
                i = number.end()
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


def scan_c_text(text: str, relpath: str, wrappers: Sequence[WrapperSpec] = ()) -> FileScan:
    """Scan one C/C++/CUDA file's text for getenv-family reads and calls of configured wrappers
    (``vt::env_flag:0`` or ``vt.env_flag:0``; matched on the trailing ``::`` components)."""
    result = FileScan(file=relpath, parsed=True)
    wrapper_names = {spec.dotted[-1] for spec in wrappers}
    objc = "NSProcessInfo" in text
    if "getenv" not in text and not objc and not any(name in text for name in wrapper_names):
        result.parsed = False
        return result
    tokens = tokenize_c(text)
    constants = string_constants(tokens)
    loops = loop_names(tokens, constants)
    if objc:
        result.reads.extend(_objc_reads(tokens, constants, relpath))
    helper_params: dict[str, set[int]] = {}  # helper function -> positions of parameters it passes to getenv
    for index, (kind, value, line) in enumerate(tokens):
        if kind != IDENT or (value not in GETENV_NAMES and value not in wrapper_names):
            continue
        if value in GETENV_NAMES and index + 1 < len(tokens) and tokens[index + 1][1] == "<":
            # a template `getenv<bool>("X", false)` (TransformerEngine's typed wrapper): never the C library's
            close = _template_end(tokens, index + 1)
            if close is not None and close + 1 < len(tokens) and tokens[close + 1][1] == "(":
                args = _arguments(tokens, close + 1)
                if args and not (args[0] and args[0][0][0] == IDENT and args[0][0][1] in _DECLARATION_WORDS):
                    name = _name_of(args[0], constants, loops)
                    default = _literal_of(args[1]) if len(args) > 1 else None
                    at = args[0][0][2] if args[0] else line
                    form = f"{value}<{''.join(t[1] for t in tokens[index + 2 : close])}> (C++ template)"
                    result.reads.extend(_with_ref(make_reads(name, default, relpath, at, form), name))
                    _note_helper(tokens, index, args[0], helper_params)
            continue
        if index + 1 >= len(tokens) or tokens[index + 1][1] != "(":
            continue
        before = tokens[index - 1] if index else None
        if before and before[0] == PUNCT and before[1] in (".", "->"):
            # a member call: not the C library's getenv, but maybe a registration wrapper
            # (`arg.set_env("LLAMA_ARG_THREADS")` for spec `.set_env:0`)
            spec = next((spec for spec in wrappers if spec.member and spec.dotted[-1] == value), None)
            if spec is not None:
                args = _arguments(tokens, index + 1)
                _wrapper_read(result, spec, args, constants, loops, relpath, line)
            continue
        qualified = _qualified_name(tokens, index)
        args = _arguments(tokens, index + 1)
        if args and args[0] and args[0][0][0] == IDENT and args[0][0][1] in _DECLARATION_WORDS:
            continue  # a declaration or definition: char *getenv(const char *name)
        if value in GETENV_NAMES and qualified[:-1] in ((), ("std",)):
            if qualified[:-1] == ("std",):
                form = f"std::{value} (C++)"
            elif before and before[1] == "::":
                form = f"::{value} (C++)"
            else:
                form = f"{value} (C)"
            name = _name_of(args[0] if args else [], constants, loops)
            result.reads.extend(_with_ref(make_reads(name, None, relpath, line, form), name))
            if args:
                _note_helper(tokens, index, args[0], helper_params)
            continue
        spec = next((spec for spec in wrappers if not spec.member and _c_matches(spec, qualified)), None)
        if spec is None:
            continue
        _wrapper_read(result, spec, args, constants, loops, relpath, line)
    if helper_params:
        result.reads.extend(_helper_calls(tokens, helper_params, constants, loops, relpath))
        result.c_helpers = helper_params
    return result


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]', re.MULTILINE)


def helper_calls_across(files: Sequence[tuple[str, str]], helpers: dict[str, dict[str, set[int]]]) -> list[EnvRead]:
    """Calls of a C/C++ helper (a function passing its parameter to getenv, found in one file) from
    the other C-family files of the tree: ``getenv_or("X_FOO")`` in ``main.cpp`` with ``std::string
    getenv_or(const char *name)`` defined in ``env.cpp``. ``files`` is (shown path, text);
    ``helpers`` maps a helper's name to {defining file: positions}. A call counts only in a file that
    ``#include``s a scanned file declaring or defining the helper (matched by the included path's
    tail), and never as a member call (``obj.getenv_or(...)``): another function of the same name
    in an unrelated file is not taken for the helper."""
    texts = dict(files)
    reads: list[EnvRead] = []
    for shown, text in files:
        names = [name for name in helpers if f"{name}(" in text and shown not in helpers[name]]
        if not names:
            continue
        included = _INCLUDE.findall(text)
        if not included:
            continue
        usable: dict[str, set[int]] = {}
        for name in names:
            declaring = [path for path, body in texts.items() if path != shown and f"{name}(" in body]
            if any(path == inc or path.endswith("/" + inc.lstrip("./")) or path.rsplit("/", 1)[-1] == inc.rsplit("/", 1)[-1]
                   for inc in included for path in declaring):
                usable[name] = {p for positions in helpers[name].values() for p in positions}
        if not usable:
            continue
        tokens = tokenize_c(text)
        constants = string_constants(tokens)
        loops = loop_names(tokens, constants)
        plain = [
            (kind, value, line) if not (index and tokens[index - 1][1] in (".", "->")) else (PUNCT, value, line)
            for index, (kind, value, line) in enumerate(tokens)
        ]
        reads.extend(_helper_calls(plain, usable, constants, loops, shown))
    return reads


def _template_end(tokens: list[tuple[str, str, int]], open_angle: int) -> int | None:
    """Index of the ``>`` closing the template argument list opened at ``open_angle``."""
    depth = 0
    for cursor in range(open_angle, min(len(tokens), open_angle + 64)):
        text = tokens[cursor][1]
        if text == "<":
            depth += 1
        elif text == ">":
            depth -= 1
            if depth == 0:
                return cursor
        elif text in (";", "{", "}", "(", ")"):
            return None
    return None


_NOT_FUNCTIONS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype"}


def _note_helper(
    tokens: list[tuple[str, str, int]], call: int, arg: list[tuple[str, str, int]], helpers: dict[str, set[int]]
) -> None:
    """``size_t PoolSize(const char *env_var) { ... std::getenv(env_var) ... }``: the enclosing
    function passes its parameter ``env_var`` to getenv, so its callers name the variable."""
    if len(arg) != 1 or arg[0][0] != IDENT:
        return
    param = arg[0][1]
    depth = 0
    cursor = call - 1
    while cursor > 0:
        text = tokens[cursor][1]
        if text == "}":
            depth += 1
        elif text == "{":
            if depth > 0:
                depth -= 1
            else:
                close = cursor - 1
                while close > 0 and tokens[close][0] == IDENT and tokens[close][1] in ("const", "noexcept", "override"):
                    close -= 1
                if tokens[close][1] != ")":
                    return  # a namespace, class or initializer brace: not a function body
                opened, level = close, 0
                while opened > 0:
                    if tokens[opened][1] == ")":
                        level += 1
                    elif tokens[opened][1] == "(":
                        level -= 1
                        if level == 0:
                            break
                    opened -= 1
                name = tokens[opened - 1] if opened > 0 else ("", "", 0)
                if name[0] != IDENT:
                    return
                if name[1] in _NOT_FUNCTIONS:
                    cursor = opened - 1
                    continue
                params = _arguments(tokens, opened)
                for position, tokens_of_param in enumerate(params):
                    if tokens_of_param and tokens_of_param[-1][1] == param and len(tokens_of_param) > 1:
                        helpers.setdefault(name[1], set()).add(position)
                return
        cursor -= 1


def _helper_calls(
    tokens: list[tuple[str, str, int]],
    helpers: dict[str, set[int]],
    constants: dict[str, tuple[str, ...]],
    loops: dict[str, tuple[str, ...]],
    relpath: str,
) -> list[EnvRead]:
    """Calls, in this file, of a helper that passes a parameter to getenv: the argument at that
    position is the name read (a literal or a constant; anything else is not a read here)."""
    reads: list[EnvRead] = []
    for index, (kind, value, _) in enumerate(tokens):
        if kind != IDENT or value not in helpers or index + 1 >= len(tokens) or tokens[index + 1][1] != "(":
            continue
        args = _arguments(tokens, index + 1)
        for position in sorted(helpers[value]):
            if position >= len(args) or not args[position]:
                continue
            if args[position][0][0] == IDENT and args[position][0][1] in _DECLARATION_WORDS:
                continue  # the definition itself
            name = _name_of(args[position], constants, loops)
            if name.static is None and not name.choices:
                continue  # a computed name passed on: the helper's own read already says so
            reads.extend(make_reads(name, None, relpath, args[position][0][2], f"helper {value} -> getenv (C++)"))
    return reads


_OBJC_LOOKUPS = {"objectForKey", "valueForKey"}


def _objc_reads(tokens: list[tuple[str, str, int]], constants: dict[str, tuple[str, ...]], relpath: str) -> list[EnvRead]:
    """Objective-C: ``[[NSProcessInfo processInfo] environment][@"X"]`` and
    ``[... environment] objectForKey:@"X"]`` (also ``.environment``, ``valueForKey:``)."""
    reads: list[EnvRead] = []
    count = len(tokens)
    for index, (kind, value, line) in enumerate(tokens):
        if kind != IDENT or value != "environment":
            continue
        if not any(t[1] in ("processInfo", "NSProcessInfo") for t in tokens[max(0, index - 6) : index]):
            continue
        cursor = index + 1
        if cursor < count and tokens[cursor][1] == "]":
            cursor += 1
        if cursor + 1 < count and tokens[cursor][1] == "[":
            cursor += 1
        elif cursor + 1 < count and tokens[cursor][1] in _OBJC_LOOKUPS and tokens[cursor + 1][1] == ":":
            cursor += 2
        else:
            continue
        if cursor < count and tokens[cursor][1] == "@":
            cursor += 1
        end = cursor
        while end < count and tokens[end][1] not in ("]", ";"):
            end += 1
        name = _name_of(tokens[cursor:end], constants)
        reads.extend(make_reads(name, None, relpath, line, "NSProcessInfo environment (Objective-C)"))
    return reads


def _wrapper_read(
    result: FileScan,
    spec: WrapperSpec,
    args: list[list[tuple[str, str, int]]],
    constants: dict[str, tuple[str, ...]],
    loops: dict[str, tuple[str, ...]],
    relpath: str,
    line: int,
) -> None:
    if spec.position >= len(args):
        return  # the name argument is left out (an optional parameter): nothing is read
    name = _name_of(args[spec.position], constants, loops)
    if args[spec.position]:
        line = args[spec.position][0][2]
    default = None
    if spec.default_position is not None and spec.default_position < len(args):
        default = _literal_of(args[spec.default_position])
    result.reads.extend(_with_ref(make_reads(name, default, relpath, line, f"wrapper {spec.text} (C)"), name))


def _with_ref(reads: list[EnvRead], name: Expr) -> list[EnvRead]:
    """Mark a read whose name is an identifier this file does not define, for resolution against
    the ``#define``s of the other scanned files."""
    if name.static is None and not name.choices and name.source:
        return [replace(read, ref=name.source) for read in reads]
    return reads


_CONSTANT_TYPES = {"char", "string_view", "string", "NSString"}


def string_arrays(
    tokens: list[tuple[str, str, int]], constants: dict[str, tuple[str, ...]]
) -> dict[str, tuple[str, ...]]:
    """``const char * const NAMES[] = { "A", "B" };`` (or a ``std::array``/``std::vector`` of
    literals, or an array of structs whose first field is the name, ``{{"HF_HOME", p}, ...}``):
    NAME -> its literal elements. A name bound twice is dropped."""
    found: dict[str, tuple[str, ...] | None] = {}
    count = len(tokens)
    for index, (kind, value, _) in enumerate(tokens):
        if kind != IDENT or index + 3 >= count:
            continue
        cursor = index + 1
        if tokens[cursor][1] == "[":
            while cursor < count and tokens[cursor][1] != "]":
                cursor += 1
            cursor += 1
        if cursor + 1 >= count or tokens[cursor][1] not in ("=", "{"):
            continue
        cursor += 1 if tokens[cursor][1] == "{" else 2
        if tokens[cursor - 1][1] != "{":
            continue
        elements: list[str] = []
        while cursor < count:
            kind_here, text_here = tokens[cursor][0], tokens[cursor][1]
            if kind_here == STRING:
                if text_here:  # an empty string is not a name
                    elements.append(text_here)
                cursor += 1
            elif kind_here == IDENT and text_here in constants:
                elements.extend(constants[text_here])
                cursor += 1
            elif text_here == "{":  # a struct element: its first field is the name, `{"HF_HOME", path}`
                first = tokens[cursor + 1] if cursor + 1 < count else ("", "", 0)
                if first[0] == STRING:
                    if first[1]:  # `{"", python_cuda_directory()}`: a pair with no name
                        elements.append(first[1])
                elif first[0] == IDENT and first[1] in constants:
                    elements.extend(constants[first[1]])
                else:
                    break
                depth = 0
                while cursor < count:
                    if tokens[cursor][1] == "{":
                        depth += 1
                    elif tokens[cursor][1] == "}":
                        depth -= 1
                        if depth == 0:
                            break
                    cursor += 1
                cursor += 1
            else:
                break
            if cursor < count and tokens[cursor][1] == ",":
                cursor += 1
        if not elements or cursor >= count or tokens[cursor][1] != "}":
            continue
        declaration = {token[1] for token in tokens[max(0, index - 8) : index]}
        # `struct { const char * var; ... } entries[] = {...}`: the anonymous struct's `}` precedes the name
        struct_array = tokens[index - 1][1] == "}"
        # a std::vector / std::array of {name, value} pairs or of names, as a loop's source
        wide = {token[1] for token in tokens[max(0, index - 20) : index]}
        container = bool(wide & {"vector", "array", "initializer_list"}) and tokens[index - 1][1] == ">"
        if (declaration & _CONSTANT_TYPES and declaration & {"const", "constexpr", "static"}) or struct_array or container:
            found[value] = None if value in found else tuple(elements)
    return {name: values for name, values in found.items() if values is not None}


def loop_names(
    tokens: list[tuple[str, str, int]], constants: dict[str, tuple[str, ...]]
) -> dict[str, tuple[str, ...]]:
    """``for (const char * var : NAMES)`` over an array of literals binds ``var`` to its elements
    (a name bound by two such loops over different arrays is dropped)."""
    arrays = string_arrays(tokens, constants)
    if not arrays:
        return {}
    found: dict[str, tuple[str, ...] | None] = {}
    count = len(tokens)
    for index, (kind, value, _) in enumerate(tokens):
        if kind != IDENT or value != "for" or index + 1 >= count or tokens[index + 1][1] != "(":
            continue
        cursor, depth = index + 2, 0
        while cursor + 2 < count and depth >= 0:
            text = tokens[cursor][1]
            if text == "(":
                depth += 1
            elif text == ")":
                depth -= 1
            elif depth == 0 and text == ":" and (tokens[cursor - 1][0] == IDENT or tokens[cursor - 1][1] == "]"):
                array = tokens[cursor + 1][1]
                var = tokens[cursor - 1][1]
                if var == "]":  # a structured binding `auto &[env, path]`: the first is the name
                    opened = cursor - 1
                    while opened > index and tokens[opened][1] != "[":
                        opened -= 1
                    var = tokens[opened + 1][1] if tokens[opened + 1][0] == IDENT else ""
                if var and array in arrays and tokens[cursor + 2][1] == ")":
                    found[var] = None if var in found and found[var] != arrays[array] else arrays[array]
                break
            elif text in (";", "{"):
                break
            cursor += 1
    return {name: values for name, values in found.items() if values is not None}


def string_constants(tokens: list[tuple[str, str, int]]) -> dict[str, tuple[str, ...]]:
    """Names bound to a string literal in this file: ``#define NAME "LITERAL"``,
    ``constexpr const char* NAME = "..."``, ``static const char NAME[] = "..."``,
    ``const std::string_view NAME = "..."``. A name bound in several ``#ifdef`` branches holds each
    of its values (``HOME_DIR`` is ``"USERPROFILE"`` or ``"HOME"``): a read through it reads each."""
    found: dict[str, list[str]] = {}

    def bind(name: str, text: str) -> None:
        values = found.setdefault(name, [])
        if text not in values:
            values.append(text)

    count = len(tokens)
    for index, (kind, value, line) in enumerate(tokens):
        if kind == IDENT and value == "define" and index >= 1 and tokens[index - 1][1] == "#":
            if index + 2 < count and tokens[index + 1][0] == IDENT and tokens[index + 1][2] == line:
                cursor, parts = index + 2, []
                while cursor < count and tokens[cursor][0] == STRING and tokens[cursor][2] == line:
                    parts.append(tokens[cursor][1])
                    cursor += 1
                ends_line = cursor >= count or tokens[cursor][2] != line
                if parts and ends_line:
                    bind(tokens[index + 1][1], "".join(parts))
            continue
        if kind != IDENT or index + 2 >= count:
            continue
        cursor = index + 1
        if tokens[cursor][1] == "[" and cursor + 1 < count and tokens[cursor + 1][1] == "]":
            cursor += 2
        if cursor >= count or tokens[cursor][1] != "=":
            continue
        cursor += 1
        parts = []
        while cursor < count and tokens[cursor][0] == STRING:
            parts.append(tokens[cursor][1])
            cursor += 1
        if not parts or cursor >= count or tokens[cursor][1] != ";":
            continue
        declaration = {token[1] for token in tokens[max(0, index - 6) : index]}
        if declaration & _CONSTANT_TYPES and declaration & {"const", "constexpr"}:
            bind(value, "".join(parts))
    return {name: tuple(values) for name, values in found.items()}


_DEFINE = r'^[ \t]*#[ \t]*define[ \t]+{name}[ \t]+((?:"(?:[^"\\\n]|\\.)*"[ \t]*)+)$'


def constants_across_files(texts: Sequence[str], names: set[str]) -> dict[str, tuple[str, ...]]:
    """Values of ``#define NAME "..."`` for the given names in any of ``texts`` (a header defines
    what a ``.cpp`` passes to ``getenv``); every distinct value is kept."""
    pattern = re.compile(_DEFINE.format(name="(" + "|".join(re.escape(n) for n in sorted(names)) + ")"), re.M)
    found: dict[str, list[str]] = {}
    for text in texts:
        if "define" not in text:
            continue
        for match in pattern.finditer(text):
            value = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', match.group(2)))
            values = found.setdefault(match.group(1), [])
            if value not in values:
                values.append(value)
    return {name: tuple(values) for name, values in found.items()}


def _qualified_name(tokens: list[tuple[str, str, int]], index: int) -> tuple[str, ...]:
    """``a::b::name`` ending at ``index`` -> ("a", "b", "name"); a leading ``::`` adds nothing."""
    parts = [tokens[index][1]]
    cursor = index - 1
    while cursor >= 1 and tokens[cursor][1] == "::" and tokens[cursor - 1][0] == IDENT:
        parts.append(tokens[cursor - 1][1])
        cursor -= 2
    return tuple(reversed(parts))


def _c_matches(spec: WrapperSpec, qualified: tuple[str, ...]) -> bool:
    """The call's qualified name and the spec agree on their common trailing components (code inside
    ``namespace vt`` calls ``env_flag(...)`` for spec ``vt::env_flag``)."""
    n = min(len(spec.dotted), len(qualified))
    return qualified[-n:] == spec.dotted[-n:]


def _arguments(tokens: list[tuple[str, str, int]], open_paren: int) -> list[list[tuple[str, str, int]]]:
    """The call's arguments as token lists, split at top-level commas."""
    args: list[list[tuple[str, str, int]]] = [[]]
    depth = 0
    for token in tokens[open_paren + 1 :]:
        text = token[1] if token[0] == PUNCT else ""
        if text in ("(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}"):
            if depth == 0:
                break
            depth -= 1
        elif text == "," and depth == 0:
            args.append([])
            continue
        args[-1].append(token)
    return [] if args == [[]] else args


def _name_of(
    arg: list[tuple[str, str, int]],
    constants: dict[str, tuple[str, ...]] | None = None,
    loops: dict[str, tuple[str, ...]] | None = None,
) -> Expr:
    """A name argument: string literals and names of string constants -> static (or one of a few
    values); a loop variable over an array of literals (``var``, ``entry.var``) -> one of its
    elements; else dynamic with its leading literal text and, for a lone identifier, that
    identifier as ``source`` (a header may define it)."""
    constants = constants or {}
    if loops and arg and arg[0][0] == IDENT and arg[0][1] in loops and (len(arg) == 1 or arg[1][1] == "."):
        values = loops[arg[0][1]]
        return Expr(static=None, prefix="", choices=values) if len(values) > 1 else Expr(static=values[0], prefix=values[0])
    combos = [""]
    for kind, value, _ in arg:
        if kind == IDENT and value in constants:
            combos = [head + tail for head in combos for tail in constants[value]]
            continue
        if kind != STRING:
            source = value if len(arg) == 1 and kind == IDENT else ""
            prefix = combos[0] if len(set(combos)) == 1 else ""
            return Expr(static=None, prefix=prefix, source=source)
        combos = [head + value for head in combos]
    if not arg:
        return Expr(static=None)
    unique = tuple(dict.fromkeys(combos))
    if len(unique) == 1:
        return Expr(static=unique[0], prefix=unique[0])
    return Expr(static=None, prefix="", choices=unique)


def _literal_of(arg: list[tuple[str, str, int]]) -> Expr:
    """A default argument: string literals, one number or true/false are literal; else computed."""
    source = " ".join(value for _, value, _ in arg)
    if arg and all(kind == STRING for kind, _, _ in arg):
        text = "".join(value for _, value, _ in arg)
        return Expr(static=text, prefix=text, source=source)
    if len(arg) == 1 and (arg[0][0] == NUMBER or arg[0][1] in ("true", "false")):
        return Expr(static=arg[0][1], prefix=arg[0][1], source=source)
    if len(arg) == 1 and arg[0][1] in ("nullptr", "NULL"):
        return Expr(static=None, is_none=True, source=source)
    return Expr(static=None, source=source or "?")
