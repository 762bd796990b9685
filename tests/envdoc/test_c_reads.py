"""The C/C++/CUDA scanner: getenv, std::getenv, ::getenv, secure_getenv; comments, strings, raw
strings, declarations and member functions named getenv are not reads."""

from __future__ import annotations

import pytest
from vtgate.envdoc import EnvdocError, WrapperSpec
from vtgate.envdoc.cscan import scan_c_text


def scan(code: str) -> list[tuple[str | None, str, int]]:
    return [(read.name, read.prefix, read.line) for read in scan_c_text(code, "kernel.cu").reads]


def test_getenv_std_getenv_global_getenv_and_secure_getenv_are_reads() -> None:
    code = (
        "#include <cstdlib>\n"
        'const char* a = getenv("VT_C_GETENV");\n'
        'auto b = std::getenv("VT_STD_GETENV");\n'
        'auto c = ::getenv("VT_GLOBAL_GETENV");\n'
        'auto d = secure_getenv("VT_SECURE");\n'
    )
    assert scan(code) == [
        ("VT_C_GETENV", "VT_C_GETENV", 2),
        ("VT_STD_GETENV", "VT_STD_GETENV", 3),
        ("VT_GLOBAL_GETENV", "VT_GLOBAL_GETENV", 4),
        ("VT_SECURE", "VT_SECURE", 5),
    ]


def test_comments_and_string_literals_are_not_reads() -> None:
    code = (
        '// getenv("VT_LINE_COMMENT")\n'
        '/* getenv("VT_BLOCK_COMMENT")\n'
        '   still a comment */\n'
        'const char* s = "getenv(\\"VT_IN_STRING\\")";\n'
        'auto r = R"x(getenv("VT_IN_RAW_STRING"))x";\n'
        'const char* real = getenv("VT_REAL");\n'
    )
    assert scan(code) == [("VT_REAL", "VT_REAL", 6)]


def test_line_numbers_count_newlines_inside_comments_and_raw_strings() -> None:
    code = '/*\n\n*/\nauto r = R"(a\nb)";\nauto v = getenv("VT_AFTER");\n'
    assert scan(code) == [("VT_AFTER", "VT_AFTER", 6)]


def test_adjacent_literals_concatenate_and_computed_names_are_dynamic() -> None:
    code = (
        'auto a = getenv("VT_" "JOINED");\n'
        'auto b = getenv(("VT_ARM_" + arm).c_str());\n'
        "auto c = getenv(name);\n"
    )
    assert scan(code) == [("VT_JOINED", "VT_JOINED", 1), (None, "", 2), (None, "", 3)]


def test_declarations_members_and_other_namespaces_are_not_reads() -> None:
    code = (
        "extern char *getenv(const char *name);\n"
        'auto a = config.getenv("VT_MEMBER");\n'
        'auto b = ptr->getenv("VT_ARROW");\n'
        'auto c = mylib::getenv("VT_OTHER_NAMESPACE");\n'
    )
    assert scan(code) == []


def test_a_file_without_getenv_is_not_tokenized() -> None:
    result = scan_c_text("int main() { return 0; }\n", "main.c")
    assert result.reads == [] and result.parsed is False


def scan_wrapped(code: str, *specs: str) -> list[tuple[str | None, str, int, str | None]]:
    wrappers = [WrapperSpec.parse(spec) for spec in specs]
    return [(r.name, r.prefix, r.line, r.default) for r in scan_c_text(code, "engine.cpp", wrappers).reads]


def test_cpp_wrapper_calls_by_position_with_literal_defaults() -> None:
    code = (
        'namespace vt { bool env_flag(const char* name, bool fallback); }\n'
        'bool a = vt::env_flag("VT_CPP_FLAG", false);\n'
        'int b = c10::utils::get_env("VT_CPP_INT", 16);\n'
        'auto c = vt::env_flag(make_name("VT_", arm), true);\n'
        'auto d = other::env_flag("VT_OTHER_NS", true);\n'
    )
    assert scan_wrapped(code, "vt::env_flag:0", "get_env:0") == [
        ("VT_CPP_FLAG", "VT_CPP_FLAG", 2, "false"),
        ("VT_CPP_INT", "VT_CPP_INT", 3, "16"),
        (None, "", 4, "true"),
    ]


def test_cpp_wrapper_name_at_a_later_position_and_unqualified_calls_inside_the_namespace() -> None:
    code = 'namespace vt {\nint x = env_int(cfg, "VT_SECOND", 4);\n}\n'
    assert scan_wrapped(code, "vt::env_int:1") == [("VT_SECOND", "VT_SECOND", 2, "4")]


def test_wrapper_spec_accepts_cpp_scope_and_rejects_bad_positions() -> None:
    assert WrapperSpec.parse("c10::utils::get_env:0:-").dotted == ("c10", "utils", "get_env")
    assert WrapperSpec.parse("c10::utils::get_env:0:-").default_position is None
    for bad in ("knob:x", "knob:-1", "knob:0:y", ":0", "a:0:1:2"):
        with pytest.raises(EnvdocError, match="wrapper spec"):
            WrapperSpec.parse(bad)
