"""A C++ helper passing its parameter to getenv, defined in one file and called with literals from
other files of the tree (issue 24): followed where the calling file includes a header declaring the
helper; a member call of the same name, or a same-named function in a file that includes no such
header, reads nothing."""

from __future__ import annotations

from pathlib import Path

from vtgate.envdoc import EnvdocConfig, run_envdoc

FILES = {
    "src/util/env.h": "#pragma once\n#include <string>\nstd::string getenv_or(const char* name, const char* fallback);\n",
    "src/util/env.cpp": (
        '#include "env.h"\n'
        "#include <cstdlib>\n"
        "std::string getenv_or(const char* name, const char* fallback) {\n"
        "    const char* value = std::getenv(name);\n"
        "    return value ? value : fallback;\n"
        "}\n"
    ),
    "src/main.cpp": (
        '#include "util/env.h"\n'
        "#define POOL_ENV \"APP_POOL\"\n"
        "struct Cfg { std::string getenv_or(const char*, const char*); } cfg;\n"
        "int main() {\n"
        '    auto threads = getenv_or("APP_THREADS", "4");\n'
        "    auto pool = getenv_or(POOL_ENV, \"1\");\n"
        '    auto member = cfg.getenv_or("APP_MEMBER_NOT_A_READ", "");\n'
        "    return 0;\n"
        "}\n"
    ),
    "src/other.cpp": (
        '#include "table.h"\n'
        "static std::string getenv_or(const char* key, const char* fallback) { return lookup(key, fallback); }\n"
        'auto x = getenv_or("APP_OTHER_NOT_A_READ", "");\n'
    ),
    "src/table.h": "std::string lookup(const char* key, const char* fallback);\n",
}


def test_a_helper_defined_in_one_file_is_followed_in_files_including_its_header(tmp_path: Path) -> None:
    for relpath, text in FILES.items():
        (tmp_path / relpath).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relpath).write_text(text)
    (tmp_path / "ENV.md").write_text("| name | effect |\n|---|---|\n| ZZ_NONE | none |\n")
    report = run_envdoc(tmp_path, EnvdocConfig.load(tmp_path, {"sources": ["src"], "doc": "ENV.md", "prefix": "", "jobs": 1}))
    named = sorted((read.name, read.file, read.line) for read in report.reads if read.name)
    assert named == [
        ("APP_POOL", "src/main.cpp", 6),  # a #define of the calling file
        ("APP_THREADS", "src/main.cpp", 5),
    ]
