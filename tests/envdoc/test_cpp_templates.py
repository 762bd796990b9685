"""C++ forms from TransformerEngine (excerpts under tests/envdoc/realworld/issue24/cpp/, license and
source lines in each file's first line): template calls ``getenv<T>("X"[, default])``, a vector of
``{"NAME", value}`` pairs walked by a range-for with a structured binding (empty names are not
names), and a helper that passes its ``const char *`` parameter to ``std::getenv``, called with
literals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from vtgate.envdoc.cscan import scan_c_text

HERE = Path(__file__).parent / "realworld" / "issue24"
MANIFEST = json.loads((HERE / "MANIFEST.json").read_text())


@pytest.mark.parametrize("key", sorted(key for key in MANIFEST if key.startswith("cpp/")))
def test_every_name_of_the_excerpt_is_found_and_nothing_else(key: str) -> None:
    scan = scan_c_text((HERE / key).read_text(), key)
    assert sorted({read.name for read in scan.reads if read.name}) == sorted(MANIFEST[key]["reads"])
    assert "" not in {read.name for read in scan.reads}


def test_template_calls_give_the_default_argument_and_the_line_of_the_name() -> None:
    scan = scan_c_text(
        "int f() {\n  const bool warn =\n      transformer_engine::getenv<bool>(\"NVTE_WARN\", false);\n"
        "  auto p = getenv<std::string>(\"NVTE_PATH\", \"/tmp\");\n  if (a < getenv) return 0;\n"
        "  return getenv<int>(\"NVTE_N\");\n}\n"
        "template <typename T> T getenv(const char *variable, const T &default_value);\n",
        "a.cpp",
    )
    assert [(r.name, r.line, r.default, r.form) for r in scan.reads] == [
        ("NVTE_WARN", 3, "false", "getenv<bool> (C++ template)"),
        ("NVTE_PATH", 4, "/tmp", "getenv<std::string> (C++ template)"),
        ("NVTE_N", 6, None, "getenv<int> (C++ template)"),
    ]


def test_a_helper_called_with_a_computed_name_reads_nothing_more() -> None:
    scan = scan_c_text(
        "size_t Pool(const char *env_var) { return atoi(std::getenv(env_var)); }\n"
        "void g(std::string s) { Pool(\"NVTE_POOL\"); Pool(s.c_str()); if (Pool(\"NVTE_OTHER\")) {} }\n",
        "a.cpp",
    )
    assert sorted(r.name for r in scan.reads if r.name) == ["NVTE_OTHER", "NVTE_POOL"]
