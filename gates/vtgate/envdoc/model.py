"""The records that cross envdoc's module lines: a resolved expression, one env read found in
source, a wrapper call or definition awaiting cross-file resolution, and the error type whose
message always names the thing that is wrong and the fix."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_SPEC = re.compile(r"^(?P<member>\.)?(?P<name>[^:.][^:]*(?:::[^:]+)*)(?::(?P<position>[^:]*))?(?::(?P<default>[^:]*))?$")


class EnvdocError(Exception):
    """A usage or configuration error (missing doc, malformed table row, bad allowlist or wrapper
    spec): the run cannot give a verdict. The CLI exits 2 with this message."""


class EnvdocNothingToCheck(EnvdocError):
    """The run would check nothing (no source file matched, no read in scope): never "ok". The CLI
    exits 5."""


@dataclass(frozen=True)
class Expr:
    """What the scanner knows statically about one expression used as a name or a default.

    ``static`` is the full string value when it is known; otherwise ``prefix`` is the literal text
    the value is known to start with ("" when nothing is known). ``is_none`` marks the literal None
    (a default of None means "no default"). ``source`` is the expression's text, for messages.
    ``choices`` lists the possible values when the expression is one of several known strings, as
    the variable of ``for name in ("VT_A", "VT_B")`` is."""

    static: str | None
    prefix: str = ""
    is_none: bool = False
    source: str = ""
    choices: tuple[str, ...] = ()  # the value is one of these (a loop over literal names)
    suffix: str = ""  # literal text the value is known to end with, when not static
    ref: str = ""  # Python: "pyattr:ATTR" / "pymeth:METHOD", a class attribute or method of the tree

    @property
    def is_static(self) -> bool:
        return self.static is not None


NO_DEFAULT = "none"  # the read gives no default (or None): unset stays unset
LITERAL_DEFAULT = "literal"  # the default is a statically known value, compared with the doc
NONLITERAL_DEFAULT = "nonliteral"  # computed at run time: reported as unverifiable


@dataclass(frozen=True)
class EnvRead:
    """One read of an environment variable at file:line.

    ``name`` is the variable's name when static, else None and ``prefix`` holds the literal prefix
    the name is known to start with. ``default_kind`` is one of NO_DEFAULT, LITERAL_DEFAULT,
    NONLITERAL_DEFAULT; ``default`` is the literal default's text, or the source of a non-literal
    one. ``form`` says how it was read (``os.environ.get``, ``getenv (C)``, ``wrapper knobs.flag``)."""

    name: str | None
    prefix: str
    file: str
    line: int
    form: str
    default_kind: str = NO_DEFAULT
    default: str | None = None
    suffix: str = ""  # for a computed name: the literal text it is known to end with
    ref: str = ""  # C: the identifier passed as the name, when this file does not define it

    @property
    def is_dynamic(self) -> bool:
        return self.name is None


@dataclass(frozen=True)
class WrapperSpec:
    """A configured wrapper: calls to ``dotted`` (suffix-matched on dotted components) read the env
    var named by positional argument ``position``; the default is positional ``default_position``
    (None: no default argument) or the keyword ``default``. ``member`` (spec written ``.name:POS``)
    matches member calls ``obj.name(...)`` / ``obj->name(...)`` on any object, C++ included."""

    text: str
    dotted: tuple[str, ...]
    position: int
    default_position: int | None
    member: bool = False

    @classmethod
    def parse(cls, text: str) -> WrapperSpec:
        """Parse ``module.func:POS``, ``func:POS``, ``Class.method:POS`` or ``.member:POS`` (C++
        names may use ``::``, ``vt::env_flag:0``); POS is required. An optional third field gives the
        default's position (``func:0:2``) or ``-`` for none (``func:0:-``)."""
        fix = (
            "write it as 'module.func:POS', 'func:POS' or '.member:POS' (POS = the 0-based position of the "
            "name argument), e.g. 'vtengine.knobs.env_flag:0'"
        )
        stripped = text.strip()
        match = _SPEC.match(stripped)
        if not match:
            raise EnvdocError(f"wrapper spec {text!r} is malformed: {fix}")
        if match["position"] is None:
            raise EnvdocError(f"wrapper spec {text!r} has no :POS (which argument holds the env var name?): {fix}")
        dotted = tuple(match["name"].replace("::", ".").split("."))
        if not all(part.isidentifier() for part in dotted):
            raise EnvdocError(f"wrapper spec {text!r}: {match['name']!r} is not a dotted name; {fix}")
        position_text, default_text = match["position"], match["default"]
        if position_text is not None and not position_text.isdigit():
            raise EnvdocError(
                f"wrapper spec {text!r}: position {position_text!r} is not an integer >= 0; {fix}"
            )
        position = int(position_text) if position_text else 0
        default_position: int | None = position + 1
        if default_text is not None:
            if default_text == "-":
                default_position = None
            elif default_text.isdigit():
                default_position = int(default_text)
            else:
                raise EnvdocError(
                    f"wrapper spec {text!r}: default position {default_text!r} is not an integer >= 0 or '-'"
                )
        return cls(
            text=stripped,
            dotted=dotted,
            position=position,
            default_position=default_position,
            member=bool(match["member"]),
        )

    def matches(self, qualified: tuple[str, ...]) -> bool:
        """True when the qualified callee or definition name ends with this spec's components."""
        n = len(self.dotted)
        return len(qualified) >= n and qualified[-n:] == self.dotted


@dataclass(frozen=True)
class WrapperDef:
    """A definition of a configured wrapper: its parameter names as seen by callers (``self`` of a
    method dropped) and the statically known defaults of those parameters."""

    spec: str
    params: tuple[str, ...]
    defaults: tuple[tuple[str, Expr], ...] = ()


@dataclass(frozen=True)
class WrapperCall:
    """A call of a configured wrapper, resolved after every file is scanned (a keyword argument's
    position is only known from the wrapper's definition, which may live in another file)."""

    spec: str
    file: str
    line: int
    form: str
    args: tuple[Expr | None, ...]  # None: a *starred argument, position unknown from here on
    kwargs: tuple[tuple[str, Expr], ...] = ()
    qualified: tuple[str, ...] = ()  # the callee as resolved through the file's imports
    arg_lines: tuple[int, ...] = ()
    has_double_star: bool = False  # **kwargs: a name may be passed that we cannot see
    member: bool = False  # called as obj.name(...)


@dataclass(frozen=True)
class PyHelper:
    """A top-level Python function or a method of a top-level class whose env read name is built
    from one parameter (``os.getenv("POETRY_" + "_".join(k.upper() for k in split_key(name)))``),
    for calls in other modules (resolved after every file is scanned). ``expression`` and ``guards``
    are source text with the function's single-assigned locals inlined; a guard is the test of an
    ``if`` enclosing the read and whether the read is in its body (True) or its ``else`` (False)."""

    module: tuple[str, ...]
    cls: str  # "" for a plain function
    name: str
    param: str
    position: int  # among the parameters a caller passes (``self`` dropped)
    expression: str
    guards: tuple[tuple[str, bool], ...]
    default: Expr | None
    form: str
    file: str
    line: int


@dataclass(frozen=True)
class ParamHelper:
    """A Go or Rust function whose env read's name is ``prefix + <parameter> + suffix``: its callers name it."""

    function: str
    position: int  # of the parameter among the function's parameters (a method's receiver not counted)
    prefix: str
    suffix: str
    method: bool  # a method (Go receiver, Rust ``self``): called as ``x.function(...)``; a function: as ``function(...)``
    file: str  # where it is defined, and its read's line, for the read form
    line: int
    public: bool = False  # Rust: ``pub`` / ``pub(crate)``, so other files of the crate may call it


@dataclass
class FileScan:
    """What scanning one file produced. ``error`` set means the file was skipped (incomplete run)."""

    file: str
    reads: list[EnvRead] = field(default_factory=list)
    wrapper_calls: list[WrapperCall] = field(default_factory=list)
    wrapper_defs: list[WrapperDef] = field(default_factory=list)
    error: str | None = None
    error_line: int | None = None
    parsed: bool = False  # False when the text pre-filter showed no possible read
    re_exports: dict[tuple[str, ...], tuple[str, ...]] = field(default_factory=dict)  # pkg.flag -> pkg.utils.env.flag
    suppressions: dict[int, str] = field(default_factory=dict)  # line -> reason of `vtgate: envdoc-ignore[...]`
    bad_suppressions: list[int] = field(default_factory=list)  # lines with a suppression that gives no reason
    other_calls: list[tuple[str, int]] = field(default_factory=list)  # (name, line): same-named calls no spec matched
    notes: list[str] = field(default_factory=list)  # the file parsed with errors (tree-sitter recovers), ...
    constants: dict[str, tuple[str, ...]] = field(default_factory=dict)  # Go: file-level names bound to literals
    language: str = ""  # "python", "c", "go", "rust"
    py_helpers: list[PyHelper] = field(default_factory=list)  # Python: helpers whose read name is a parameter's
    c_helpers: dict[str, set[int]] = field(default_factory=dict)  # C/C++: function -> parameter positions passed to getenv
    param_helpers: dict[str, list[ParamHelper]] = field(default_factory=dict)  # Go/Rust: function -> its parameter reads
    go_package: str = ""  # Go: the file's package clause
