"""Go and Rust reads (tree-sitter), on small excerpts of real projects kept under
tests/envdoc/realworld/issue24/ (each file's first line names its repository, path, commit and
license; MANIFEST.json lists the names each must yield and the traps that must not count), and what
every run says about what it did not look at: files by language not scanned, wrappers that matched
no call, stale entries whose name appears in a build file or an unscanned language."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from vtgate.envdoc import EnvdocConfig, run_envdoc
from vtgate.envdoc.model import WrapperSpec
from vtgate.envdoc.tsscan import available, scan_go_text, scan_rust_text

HERE = Path(__file__).parent / "realworld" / "issue24"
MANIFEST = json.loads((HERE / "MANIFEST.json").read_text())
OLLAMA_WRAPPERS = [
    WrapperSpec.parse(text)
    for text in ("envconfig.Var:0", "envconfig.String:0", "envconfig.Bool:0", "envconfig.BoolWithDefault:0",
                 "envconfig.Uint:0", "envconfig.Uint64:0")
]
VTGATE = str(Path(sys.executable).parent / "vtgate")

pytestmark = pytest.mark.skipif(not available(), reason="the envdoc-langs extra (tree-sitter) is part of .[test]")


def _expected(key: str, text: str) -> set[str]:
    entry = MANIFEST[key]
    names = {*entry.get("reads", []), *entry.get("reads_in_excerpt", []), *entry.get("reads_compile_time", []),
             *entry.get("reads_build_script", [])}
    if key.endswith(".rs"):
        return names  # clap names come from field names: they need not appear in the text
    # MANIFEST lists OLLAMA_LLM_LIBRARY for the switch excerpt, whose text does not contain it
    return {name for name in names if re.search(rf"\b{re.escape(name)}\b", text)}


def _traps(key: str) -> set[str]:
    return {trap.split(" ")[0] for trap in MANIFEST[key].get("not_reads", []) if re.fullmatch(r"[A-Z_0-9]+", trap.split(" ")[0])}


@pytest.mark.parametrize("key", sorted(key for key in MANIFEST if key.startswith(("go/", "rust/"))))
def test_every_name_of_the_excerpt_is_found_and_no_trap(key: str) -> None:
    text = (HERE / key).read_text()
    scan = (scan_go_text if key.endswith(".go") else scan_rust_text)(text, key, OLLAMA_WRAPPERS)
    found = {read.name for read in scan.reads if read.name}
    assert sorted(_expected(key, text) - found) == [], "missed"
    extra = found - _expected(key, text)
    assert sorted(extra) == [], "reported but not in the truth"
    assert not (found & _traps(key) - _expected(key, text)), "a trap was counted as a read"


def test_clap_env_names_come_from_the_field_and_a_field_named_env_is_not_an_attribute() -> None:
    scan = scan_rust_text(
        '#[derive(Parser)]\nstruct Args {\n    #[clap(default_value = "4", long, env)]\n    max_client_batch_size: usize,\n'
        '    #[arg(long, env = "HF_API_TOKEN")]\n    token: Option<String>,\n    #[clap(long, short, action)]\n    env: bool,\n}\n',
        "src/main.rs",
    )
    assert [(read.name, read.line, read.default) for read in scan.reads] == [
        ("MAX_CLIENT_BATCH_SIZE", 3, "4"),
        ("HF_API_TOKEN", 5, None),
    ]


def test_go_names_bound_in_another_file_of_the_package_and_the_os_package_renamed(tmp_path: Path) -> None:
    (tmp_path / "srv").mkdir()
    (tmp_path / "srv" / "names.go").write_text('package srv\n\nconst cloudEnv = "OLLAMA_CLOUD_BASE_URL"\n')
    (tmp_path / "srv" / "use.go").write_text(
        'package srv\n\nimport (\n\tgoos "os"\n\t"example.com/envconfig"\n)\n\n'
        'func f() string { return envconfig.Var(cloudEnv) + goos.Getenv("OLLAMA_HOST") }\n'
        '// os.Getenv("OLLAMA_IN_A_COMMENT")\nvar s = "os.Getenv(\\"OLLAMA_IN_A_STRING\\")"\n'
    )
    (tmp_path / "ENV.md").write_text("| name | effect |\n|---|---|\n| OLLAMA_HOST | where |\n")
    report = run_envdoc(tmp_path, EnvdocConfig.load(tmp_path, {"doc": "ENV.md", "prefix": "OLLAMA_", "wrappers": ["envconfig.Var:0"]}))
    assert sorted((read.name, read.file, read.line) for read in report.reads) == [
        ("OLLAMA_CLOUD_BASE_URL", "srv/use.go", 8),
        ("OLLAMA_HOST", "srv/use.go", 8),
    ]
    assert [(f.kind, f.name) for f in report.findings] == [("undocumented", "OLLAMA_CLOUD_BASE_URL")]


def test_a_wrapper_that_matches_no_call_is_a_warning_naming_the_closest_spelling(tmp_path: Path) -> None:
    (tmp_path / "arg.cpp").write_text(
        '#include "arg.h"\nvoid add() {\n    opt("--threads").set_env("LLAMA_ARG_THREADS");\n    getenv("LLAMA_X");\n}\n'
    )
    (tmp_path / "run.sh").write_text('echo "$LLAMA_X"\n')
    (tmp_path / "ENV.md").write_text("| name | effect |\n|---|---|\n| LLAMA_X | x |\n| LLAMA_ARG_THREADS | threads |\n")
    done = subprocess.run(
        [VTGATE, "envdoc", "--doc", "ENV.md", "--prefix", "LLAMA_", "--wrapper", "set_env:0", "--wrapper",
         "no_such_fn:0", "--json", "-"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"},
    )
    report = json.loads(done.stdout)
    assert [(w["wrapper"], w["closest"]) for w in report["unmatched_wrappers"]] == [("set_env:0", ".set_env"), ("no_such_fn:0", None)]
    assert "wrapper set_env:0 matched no call in the scanned sources; the closest spelling called is .set_env" in done.stderr
    assert "did you mean --wrapper '.set_env:0'?" in done.stderr
    assert "not scanned: 1 shell file(s) (first: run.sh): envdoc has no scanner for this language" in done.stderr
    # and with the right spelling, nothing is unmatched and the registration is a read
    done = subprocess.run(
        [VTGATE, "envdoc", "--doc", "ENV.md", "--prefix", "LLAMA_", "--wrapper", ".set_env:0:-", "--json", "-"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"},
    )
    report = json.loads(done.stdout)
    assert report["unmatched_wrappers"] == [] and report["ok"], done.stderr


def test_stale_is_never_delete_the_row_for_a_name_in_a_build_file_or_an_unscanned_language(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text('import os\nos.environ.get("NVTE_READ")\n')
    (tmp_path / "CMakeLists.txt").write_text('set(JOBS $ENV{NVTE_BUILD_MAX_JOBS})\noption(NVTE_WITH_X "x" OFF)\n')
    (tmp_path / "tool.js").write_text('const v = process.env.NVTE_JS_ONLY;\n')
    (tmp_path / "ENV.md").write_text(
        "| name | effect |\n|---|---|\n| NVTE_READ | r |\n| NVTE_BUILD_MAX_JOBS | j |\n| NVTE_JS_ONLY | js |\n| NVTE_GONE | g |\n"
    )
    report = run_envdoc(tmp_path, EnvdocConfig.load(tmp_path, {"doc": "ENV.md", "prefix": "NVTE_"}))
    stale = {f.name: f.message for f in report.findings if f.kind == "stale"}
    assert "delete the row" in stale["NVTE_GONE"]
    assert "not read by scanned code; also appears in CMakeLists.txt:1 (CMake" in stale["NVTE_BUILD_MAX_JOBS"]
    assert "not read by scanned code; also appears in tool.js:1 (JavaScript" in stale["NVTE_JS_ONLY"]
    assert not any("delete the row" in stale[name] for name in ("NVTE_BUILD_MAX_JOBS", "NVTE_JS_ONLY"))
    data = report.to_json()
    assert {s["name"]: s.get("also_in") for s in data["stale"]} == {
        "NVTE_BUILD_MAX_JOBS": "CMakeLists.txt:1", "NVTE_JS_ONLY": "tool.js:1", "NVTE_GONE": None
    }
    assert data["not_scanned"] == [
        {"language": "JavaScript", "files": 1, "first": "tool.js", "why": "envdoc has no scanner for this language"}
    ]


def test_without_the_extra_go_and_rust_files_are_named_as_not_scanned(tmp_path: Path) -> None:
    (tmp_path / "main.go").write_text('package main\nimport "os"\nfunc main() { os.Getenv("APP_GO") }\n')
    (tmp_path / "lib.rs").write_text('fn f() { std::env::var("APP_RS"); }\n')
    (tmp_path / "a.py").write_text('import os\nos.getenv("APP_PY")\n')
    (tmp_path / "ENV.md").write_text("| name | effect |\n|---|---|\n| APP_PY | p |\n| APP_GO | g |\n")
    code = (
        "import sys, json; sys.modules['tree_sitter'] = None\n"  # as if the extra were not installed
        "from pathlib import Path\nfrom vtgate.envdoc import EnvdocConfig, run_envdoc\n"
        "root = Path(sys.argv[1]); r = run_envdoc(root, EnvdocConfig.load(root, {'doc': 'ENV.md', 'prefix': 'APP_'}))\n"
        "print(json.dumps(r.to_json()))\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [(n["language"], n["files"], n["first"]) for n in data["not_scanned"]] == [("Go", 1, "main.go"), ("Rust", 1, "lib.rs")]
    assert "envdoc-langs" in data["not_scanned"][0]["why"]
    assert data["stale"] == [{"name": "APP_GO", "doc": "ENV.md", "doc_line": 4, "also_in": "main.go:3"}]
    # with the extra, the same tree is read whole
    report = run_envdoc(tmp_path, EnvdocConfig.load(tmp_path, {"doc": "ENV.md", "prefix": "APP_"}))
    assert sorted(read.name or "" for read in report.reads) == ["APP_GO", "APP_PY", "APP_RS"]
    assert report.not_scanned == []


def test_go_struct_tags_of_env_loading_libraries_are_reads_with_their_defaults() -> None:
    scan = scan_go_text(
        'package cfg\n\ntype Config struct {\n\tPort int `env:"APP_PORT" envDefault:"3000"`\n'
        '\tHost string `envconfig:"APP_HOST"`\n\tName string `json:"name"`\n\tRaw  string `env:"-"`\n}\n',
        "cfg/config.go",
    )
    assert [(read.name, read.line, read.default) for read in scan.reads] == [("APP_PORT", 4, "3000"), ("APP_HOST", 5, None)]


def test_a_go_scan_of_os_environ_by_prefix_reads_the_family() -> None:
    scan = scan_go_text(
        'package srv\n\nimport (\n\t"os"\n\t"strings"\n)\n\nfunc vars() (out []string) {\n'
        '\tfor _, kv := range os.Environ() {\n\t\tif strings.HasPrefix(kv, "OLLAMA_") {\n\t\t\tout = append(out, kv)\n\t\t}\n\t}\n'
        '\tfor _, kv := range other() {\n\t\tif strings.HasPrefix(kv, "NOT_ENV_") {\n\t\t}\n\t}\n\treturn\n}\n',
        "srv/env.go",
    )
    assert [(read.name, read.prefix, read.line) for read in scan.reads] == [(None, "OLLAMA_", 10)]


def test_envconfig_process_reads_the_names_it_builds_from_untagged_fields() -> None:
    """kelseyhightower/envconfig's README example (MIT): ``envconfig.Process("myapp", &s)`` reads
    MYAPP_<FIELD> for each field, split at word boundaries with ``split_words:"true"``, the upper-cased
    ``envconfig:"..."`` tag (with and without the prefix), never an ``ignored:"true"`` field."""
    text = (HERE / "go" / "envconfig_readme_untagged_fields.go").read_text()
    reads = scan_go_text(text, "go/envconfig_readme_untagged_fields.go").reads
    names = {read.name for read in reads}
    assert names == {
        "MYAPP_DEBUG", "MYAPP_PORT", "MYAPP_USER", "MYAPP_USERS", "MYAPP_RATE", "MYAPP_TIMEOUT", "MYAPP_COLORCODES",
        "MYAPP_MANUAL_OVERRIDE_1", "MANUAL_OVERRIDE_1", "MYAPP_DEFAULTVAR", "MYAPP_REQUIREDVAR",
        "MYAPP_AUTO_SPLIT_VAR", "MYAPP_REQUIRED_AND_AUTO_SPLIT_VAR",
    }
    assert not any("IGNORED" in name for name in names)
    assert {read.default for read in reads if read.name == "MYAPP_DEFAULTVAR"} == {"foobar"}


def test_envconfig_process_with_a_computed_prefix_or_an_unknown_type_reads_no_field_name() -> None:
    text = (
        'package main\nimport "github.com/kelseyhightower/envconfig"\n'
        "type Spec struct {\n    Debug bool\n    hidden int\n}\n"
        "func main() {\n    var s Spec\n    var o Other\n"
        "    envconfig.Process(appName(), &s)\n"  # prefix not a literal
        '    envconfig.Process("app", &o)\n'       # a type of another file
        '    other.Process("app", &s)\n'           # not envconfig
        "}\n"
    )
    assert [read.name for read in scan_go_text(text, "main.go").reads] == []
