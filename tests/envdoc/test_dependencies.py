"""A documented name no scanned source reads may be read by a dependency (RUST_LOG by tracing,
CANDLE_NUM_THREADS by candle-core, HF_HOME by huggingface_hub): envdoc says "delete the row" only
when it looked there, or when the tree declares no dependency at all. The dependency here is an
excerpt of real code, tests/envdoc/realworld/deps/candle (candle-core, MIT OR Apache-2.0)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from vtgate.envdoc import EnvdocConfig, EnvdocError, run_envdoc
from vtgate.envdoc.deps import covered, declared, manifest_kind
from vtgate.envdoc.tsscan import available

CANDLE = Path(__file__).parent / "realworld" / "deps" / "candle"
VTGATE = str(Path(sys.executable).parent / "vtgate")
needs_rust = pytest.mark.skipif(not available(), reason="tree-sitter grammars (vtgate[envdoc-langs]) are not installed")


def rust_tree(root: Path) -> Path:
    """A small Rust server crate that uses candle-core and reads one knob of its own."""
    (root / "src").mkdir(parents=True)
    (root / "Cargo.toml").write_text(
        '[package]\nname = "server"\nversion = "0.1.0"\n\n[dependencies]\ncandle-core = "0.9"\nserde = "1"\n'
        '\n[dev-dependencies]\ntempfile = "3"\n'
    )
    (root / "src" / "main.rs").write_text('fn main() {\n    let p = std::env::var("SERVER_PORT").unwrap_or_default();\n}\n')
    (root / "ENV.md").write_text(
        "| name | effect |\n|---|---|\n| SERVER_PORT | port |\n| CANDLE_NUM_THREADS | threads |\n"
        "| RAYON_NUM_THREADS | rayon threads |\n| SERVER_GONE | removed long ago |\n"
    )
    return root


def run(root: Path, **overrides: object):
    return run_envdoc(root, EnvdocConfig.load(root, {"doc": "ENV.md", "prefix": "", **overrides}))


def stale(report) -> dict[str, str]:
    return {f.name: f.message for f in report.findings if f.kind == "stale"}


def test_manifests_are_read_for_the_dependencies_they_declare(tmp_path: Path) -> None:
    (tmp_path / "Cargo.toml").write_text(
        '[dependencies]\na = "1"\nlocal-crate = { path = "../local" }\n[dev-dependencies]\nb = "1"\n[target."cfg(unix)".dependencies]\nc = "1"\n'
        '[workspace.dependencies]\nd = "1"\n'
    )
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\ndependencies = ["numpy>=1.26", "huggingface_hub[cli] ; python_version>\'3.9\'"]\n'
        '[project.optional-dependencies]\ntest = ["pytest"]\n'
    )
    (tmp_path / "requirements-dev.txt").write_text("# tools\n-r requirements.txt\nruff==0.6  # lint\n--index-url x\n")
    (tmp_path / "go.mod").write_text("module m\n\nrequire (\n\tgithub.com/a/b v1.0.0 // indirect\n)\nrequire c.io/d v2\n")
    (tmp_path / "package.json").write_text('{"dependencies": {"left-pad": "1"}, "devDependencies": {"jest": "29"}}')
    (tmp_path / "setup.cfg").write_text("[options]\ninstall_requires =\n    requests>=2\n    tqdm\n")
    (tmp_path / "broken.toml").write_text("[[[")
    names = [(tmp_path / n, n, manifest_kind(n) or "") for n in
             ("Cargo.toml", "pyproject.toml", "requirements-dev.txt", "go.mod", "package.json", "setup.cfg")]
    found = {item.manifest: item.names for item in declared(names)}
    assert found == {
        "Cargo.toml": ["a", "b", "c", "d"],  # local-crate is a folder of the tree: not a dependency to scan
        "pyproject.toml": ["huggingface_hub", "numpy", "pytest"],
        "requirements-dev.txt": ["ruff"],
        "go.mod": ["c.io/d", "github.com/a/b"],
        "package.json": ["jest", "left-pad"],
        "setup.cfg": ["requests", "tqdm"],
    }
    assert declared([(tmp_path / "broken.toml", "pyproject.toml", "pyproject")]) == []  # unreadable: no count, no crash


@needs_rust
def test_without_deps_a_tree_that_declares_dependencies_never_hears_delete_the_row(tmp_path: Path) -> None:
    report = run(rust_tree(tmp_path))
    messages = stale(report)
    assert set(messages) == {"CANDLE_NUM_THREADS", "RAYON_NUM_THREADS", "SERVER_GONE"}
    for message in messages.values():
        assert "delete the row" not in message
        assert "not read by scanned code; 3 declared dependencies (Cargo.toml) were not scanned" in message
        assert "--deps DIR (~/.cargo/registry/src" in message
    assert report.dependencies == {"declared": 3, "manifests": ["Cargo.toml"], "scanned": []}
    assert not report.ok  # hedged, still a finding: the user decides, with the fix named


@needs_rust
def test_a_name_a_dependency_reads_is_not_stale_and_the_rest_names_the_dependencies_not_scanned(tmp_path: Path) -> None:
    report = run(rust_tree(tmp_path), deps=[str(CANDLE)])
    messages = stale(report)
    assert list(messages) == ["SERVER_GONE"]
    assert "delete the row" not in messages["SERVER_GONE"]  # serde and tempfile were not offered to the scan
    assert (f"not read by scanned code, nor by the dependencies scanned ({CANDLE}); 2 of 3 declared dependencies "
            f"have no folder there (serde, tempfile): keep the row") in messages["SERVER_GONE"]
    utils = (CANDLE / "candle-core" / "src" / "utils.rs").as_posix()
    assert [(r["name"], r["file"], r["line"]) for r in report.read_by_dependency] == [
        ("CANDLE_NUM_THREADS", utils, 15),
        ("RAYON_NUM_THREADS", utils, 7),
    ]
    assert report.dependencies["files"] == 1 and report.dependencies["parsed"] == 1
    assert report.dependencies["found"] == 1 and report.dependencies["missing"] == ["serde", "tempfile"]


@needs_rust
def test_delete_the_row_once_every_declared_dependency_was_scanned(tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    for crate in ("serde-1.0.210", "tempfile-3.12.0"):  # the layout of ~/.cargo/registry/src/<index>/
        (registry / "index.crates.io-6f17d22bba15001f" / crate / "src").mkdir(parents=True)
        (registry / "index.crates.io-6f17d22bba15001f" / crate / "src" / "lib.rs").write_text("pub fn f() {}\n")
    report = run(rust_tree(tmp_path / "tree"), deps=[str(CANDLE), str(registry)])
    message = stale(report)["SERVER_GONE"]
    assert "delete the row" in message
    assert f"(dependencies scanned: {CANDLE}, {registry}, a folder for each of the 3 declared; none reads it)" in message
    assert report.dependencies["missing"] == [] and report.dependencies["found"] == 3


@needs_rust
def test_a_name_a_dependency_only_mentions_keeps_its_row_with_where(tmp_path: Path) -> None:
    dep = tmp_path / "deps" / "tracing"
    dep.mkdir(parents=True)
    (dep / "lib.rs").write_text("//! Set SERVER_GONE=1 to get the old behaviour.\npub fn f() {}\n")
    report = run(rust_tree(tmp_path / "tree"), deps=[str(tmp_path / "deps")])
    message = stale(report)["SERVER_GONE"]
    assert "delete the row" not in message
    assert f"a dependency mentions it at {(dep / 'lib.rs').as_posix()}:1" in message


def test_a_python_tree_and_a_site_packages_dependency(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pyproject.toml").write_text('[project]\nname = "pkg"\nversion = "1"\ndependencies = ["hub>=1"]\n')
    (tree / "pkg" / "a.py").write_text('import os\nos.environ.get("PKG_MODE")\n')
    site = tmp_path / "site-packages" / "hub"
    site.mkdir(parents=True)
    (site / "constants.py").write_text('import os\n\nHUB_HOME = os.getenv("HUB_HOME", "~/.cache/hub")\n')
    (tree / "ENV.md").write_text("| name | effect |\n|---|---|\n| PKG_MODE | m |\n| HUB_HOME | cache |\n| PKG_OLD | o |\n")
    hedged = stale(run(tree))["HUB_HOME"]
    assert "1 declared dependencies (pyproject.toml) were not scanned" in hedged
    (tmp_path / "site-packages" / "hub-1.2.0.dist-info").mkdir()
    report = run(tree, deps=[str(tmp_path / "site-packages")])
    assert list(stale(report)) == ["PKG_OLD"]
    assert "delete the row" in stale(report)["PKG_OLD"]  # the one declared dependency was scanned
    assert report.read_by_dependency[0]["name"] == "HUB_HOME" and report.read_by_dependency[0]["line"] == 3


def test_the_roots_own_manifest_counts_when_the_sources_are_below_it(tmp_path: Path) -> None:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "pkg"\nversion = "1"\ndependencies = ["hub"]\n')
    (tmp_path / "src" / "pkg" / "a.py").write_text('import os\nos.environ.get("PKG_MODE")\n')
    (tmp_path / "ENV.md").write_text("| name | effect |\n|---|---|\n| PKG_MODE | m |\n| HUB_HOME | h |\n")
    report = run(tmp_path, sources=["src"])
    assert "1 declared dependencies (pyproject.toml) were not scanned" in stale(report)["HUB_HOME"]


def test_declared_dependencies_are_matched_to_folders_as_registries_name_them(tmp_path: Path) -> None:
    for folder in ("registry/index.crates.io-1949cf8c6b5b557f/tracing-subscriber-0.3.19", "site/huggingface_hub-0.24.0.dist-info",
                   "gomod/github.com/spf13/cobra@v1.8.0", "checkout/candle-core"):
        (tmp_path / folder).mkdir(parents=True)
    found, missing = covered([tmp_path / "registry", tmp_path / "site", tmp_path / "gomod", tmp_path / "checkout"],
                             ["tracing-subscriber", "huggingface-hub", "github.com/spf13/cobra", "candle_core", "serde"])
    assert found == ["candle_core", "github.com/spf13/cobra", "huggingface-hub", "tracing-subscriber"]
    assert missing == ["serde"]


def test_a_tree_without_manifests_keeps_delete_the_row(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text('import os\nos.environ.get("PKG_MODE")\n')
    (tmp_path / "ENV.md").write_text("| name | effect |\n|---|---|\n| PKG_MODE | m |\n| PKG_GONE | g |\n")
    report = run(tmp_path)
    assert "delete the row" in stale(report)["PKG_GONE"]
    assert report.dependencies == {"declared": 0, "manifests": [], "scanned": []}


def test_a_missing_deps_folder_is_a_configuration_error(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text('import os\nos.environ.get("PKG_MODE")\n')
    (tmp_path / "ENV.md").write_text("| name | effect |\n|---|---|\n| PKG_MODE | m |\n")
    with pytest.raises(EnvdocError, match="--deps .*no_such: no such folder"):
        run(tmp_path, deps=[str(tmp_path / "no_such")])


@needs_rust
def test_the_cli_takes_deps_and_says_what_a_dependency_reads(tmp_path: Path) -> None:
    tree = rust_tree(tmp_path / "tree")
    done = subprocess.run(
        [VTGATE, "envdoc", "--doc", "ENV.md", "--prefix", "", "--deps", str(CANDLE), "--json", "-"],
        cwd=tree, capture_output=True, text=True, timeout=120, env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert [r["name"] for r in report["read_by_dependency"]] == ["CANDLE_NUM_THREADS", "RAYON_NUM_THREADS"]
    assert [r["name"] for r in report["stale"]] == ["SERVER_GONE"]
    assert "note: 2 documented name(s) no scanned source reads are read by a dependency (e.g. CANDLE_NUM_THREADS" in done.stderr
