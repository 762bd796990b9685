"""Python names built inside helpers and resolved at their call sites (issue 24), on excerpts of
TransformerEngine and poetry under tests/envdoc/realworld/issue24/python/ (first line: repository,
path, lines, commit, license). Excerpts are fragments (elided lines, a method body without its
class), so each is made parseable the way a reader would: split at its elision markers and at
dedents, each piece dedented, an empty block given ``pass``. The text of every read is unchanged."""

from __future__ import annotations

import ast
import json
import re
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "realworld" / "issue24"
MANIFEST = json.loads((HERE / "MANIFEST.json").read_text())
# poetry's names are built in Config.get ("POETRY_" + "_".join(k.upper()... for k in split_key(name)))
# and read through config.get("dotted.key") on objects of other modules: these two fragments lack the
# imports and annotations that tell a Config apart from a dict; test_cross_module_helpers.py runs the
# same code as whole excerpt files (poetry_tree/) and checks every name
NOT_RESOLVED = {"python/poetry_callers_dotted_keys.py", "python/poetry_name_built_in_config_get.py"}


def _runs(segment: list[str]) -> list[list[str]]:
    runs: list[list[str]] = []
    current: list[str] = []
    base: int | None = None
    for line in segment:
        if line.strip():
            indent = len(line) - len(line.lstrip())
            if base is not None and indent < base:
                runs.append(current)
                current, base = [], None
            if base is None:
                base = indent
        current.append(line)
    runs.append(current)
    return runs


def parseable(text: str) -> str:
    segments: list[list[str]] = [[]]
    for line in text.splitlines()[1:]:  # the first line is the source/license header
        if re.match(r"\s*# \.\.\. \(", line):
            segments.append([])
        else:
            segments[-1].append(line)
    pieces = []
    for segment in segments:
        for run in _runs(segment):
            body = textwrap.dedent("\n".join(run)).strip("\n") + "\n"
            for _ in range(5):
                try:
                    ast.parse(body)
                    break
                except SyntaxError as error:
                    if "expected an indented block" not in str(error.msg):
                        raise
                    last = body.rstrip("\n").splitlines()[-1]
                    body += " " * (len(last) - len(last.lstrip()) + 4) + "pass\n"
            if body.strip():
                pieces.append(body)
    return "\n".join(pieces)


@pytest.mark.parametrize(
    "key", sorted(key for key in MANIFEST if key.startswith("python/") and "reads" in MANIFEST[key] and key not in NOT_RESOLVED)
)
def test_every_name_of_the_excerpt_is_found_and_nothing_else(key: str, reads_of) -> None:
    reads = reads_of(parseable((HERE / key).read_text()), relpath=key)
    found = {read.name for read in reads if read.name}
    assert sorted(found) == sorted(MANIFEST[key]["reads"])
    traps = {trap.split(" ")[0] for trap in MANIFEST[key].get("not_reads", [])}
    assert not found & traps


def test_a_helper_name_built_from_its_parameter_is_read_at_each_literal_call(reads_of) -> None:
    reads = reads_of(
        '''
        import os

        PREFIX = "LT_"

        def flag(name, default="0"):
            key = PREFIX + name.upper()
            return os.environ.get(key, default)

        def home(lib):
            return os.environ.get(f"{lib.upper()}_HOME")

        def load(lib):  # passes its parameter on: a helper too
            return home(lib)

        flag("threads")
        flag(compute_name())    # not static: nothing read here
        load("cudnn")
        obj.flag("other")      # another object's method: not this helper
        '''
    )
    assert [(r.name, r.line, r.form) for r in reads if r.name] == [
        ("LT_THREADS", 16, "os.environ.get in helper flag()"),
        ("CUDNN_HOME", 18, "os.environ.get in helper load()"),
    ]


def test_a_method_helper_is_matched_through_self_only(reads_of) -> None:
    reads = reads_of(
        '''
        import os

        class Knobs:
            def read(self, key):
                return os.getenv(key.upper())

            def all(self):
                return self.read("app_threads"), other.read("app_trace")
        '''
    )
    assert [r.name for r in reads if r.name] == ["APP_THREADS"]


def test_keys_views_issubset_and_class_attributes_are_reads(reads_of) -> None:
    reads = reads_of(
        '''
        import os

        class Settings:
            TOKEN_ENV = "APP_TOKEN"
            URL_ENV: str = "APP_URL"

            def token(self):
                return os.getenv(self.TOKEN_ENV)

        def url():
            return os.environ.get(Settings.URL_ENV)

        if "APP_DEBUG" in os.environ.keys():
            pass
        if set(["APP_USER", "APP_PASSWORD"]).issubset(os.environ.keys()):
            pass
        if {"APP_A"}.issubset(os.environ):
            pass
        if "APP_NOT_ENV" in config.keys():
            pass
        '''
    )
    assert [(r.name, r.line) for r in reads] == [
        ("APP_TOKEN", 9), ("APP_URL", 12), ("APP_DEBUG", 14), ("APP_USER", 16), ("APP_PASSWORD", 16), ("APP_A", 18),
    ]


def test_a_constant_imported_from_another_module_is_followed(tmp_path: Path) -> None:
    from vtgate.envdoc import EnvdocConfig, run_envdoc

    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "src" / "pkg" / "consts.py").write_text('PREFIX = "APP_"\nCACHE_ENV = PREFIX + "CACHE"\nTWICE = "A"\nTWICE = "B"\n')
    (tmp_path / "src" / "pkg" / "use.py").write_text(
        "import os\nfrom . import consts\nfrom .consts import CACHE_ENV, TWICE\n"
        "a = os.environ.get(CACHE_ENV)\nb = os.getenv(consts.CACHE_ENV)\nc = os.getenv(TWICE)\n"
    )
    (tmp_path / "ENV.md").write_text("| name | effect |\n|---|---|\n| APP_CACHE | cache |\n")
    report = run_envdoc(tmp_path, EnvdocConfig.load(tmp_path, {"doc": "ENV.md", "prefix": ""}))
    assert [(r.name, r.line) for r in report.reads] == [("APP_CACHE", 4), ("APP_CACHE", 5), (None, 6)]


def test_a_family_entry_a_computed_name_may_cover_is_not_stale(tmp_path: Path) -> None:
    from vtgate.envdoc import EnvdocConfig, run_envdoc

    (tmp_path / "config.py").write_text(
        'import os\n\ndef get(setting):\n    env = "POETRY_" + "_".join(k.upper() for k in setting.split("."))\n'
        "    return os.getenv(env)\n"
    )
    (tmp_path / "ENV.md").write_text(
        "| name | effect |\n|---|---|\n| POETRY_CACHE_DIR | c |\n| POETRY_HTTP_BASIC_<NAME>_PASSWORD | p |\n| OTHER_<NAME>_X | o |\n"
    )
    report = run_envdoc(tmp_path, EnvdocConfig.load(tmp_path, {"doc": "ENV.md", "prefix": ""}))
    assert [(f.kind, f.name) for f in report.findings] == [("stale", "OTHER_*_X"), ("dynamic", "POETRY_")]


def test_a_scan_of_os_environ_by_prefix_or_pattern_covers_a_documented_family(tmp_path: Path) -> None:
    from vtgate.envdoc import EnvdocConfig, run_envdoc

    (tmp_path / "config.py").write_text(
        "import os\nimport re\n\nPATTERN = re.compile(r\"APP_REPOSITORIES_(?P<name>[A-Z_]+)_URL\")\n\n"
        "def repositories():\n    for key in os.environ:\n        if PATTERN.match(key):\n            yield key\n\n"
        "def plugins():\n    return [k for k in os.environ if k.startswith('APP_PLUGIN_')]\n\n"
        "def flags():\n    for key, value in os.environ.items():\n        if key.startswith(('APP_FLAG_', 'APP_OPT_')):\n            yield value\n\n"
        "def child_env():\n    return {k: v for k, v in os.environ.items() if not k.startswith('APP_')}\n"
    )
    (tmp_path / "ENV.md").write_text(
        "| name | effect |\n|---|---|\n| APP_REPOSITORIES_<NAME>_URL | r |\n| APP_FLAG_* | f |\n| APP_OPT_* | o |\n| APP_PLUGIN_* | p |\n"
    )
    report = run_envdoc(tmp_path, EnvdocConfig.load(tmp_path, {"doc": "ENV.md", "prefix": "APP_"}))
    assert [(r["prefix"], r["line"], r["by"]) for r in report.dynamic_covered] == [
        ("APP_REPOSITORIES_", 8, "APP_REPOSITORIES_*_URL"), ("APP_PLUGIN_", 12, "APP_PLUGIN_*"),
        ("APP_FLAG_", 16, "APP_FLAG_*"), ("APP_OPT_", 16, "APP_OPT_*"),
    ]
    assert report.findings == []
