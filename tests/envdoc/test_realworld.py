"""envdoc on small trees modelled on real projects (tests/envdoc/realworld/README.md says which and
how): every env var name the tree reads is found (recall against a hand-built truth list), nothing
else is reported as read, and each project's own style of env doc page is read without an abort."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from vtgate.envdoc import EnvdocConfig, run_envdoc

HERE = Path(__file__).parent / "realworld"
VTGATE = str(Path(sys.executable).parent / "vtgate")

TREES = {
    "accelerate_like": {
        "doc": ["docs/utilities.md"],
        "wrappers": [
            "acc.utils.environment.get_int_from_env:0",
            "acc.utils.environment.parse_flag_from_env:0",
            "acc.utils.environment.parse_choice_from_env:0",
        ],
        "prefix": "ACC_",
        "findings": [("undocumented", "ACC_USE_CPU"), ("undocumented", "ACC_DEBUG_RDV_FILE")],
    },
    "llama_like": {
        "doc": ["tools/server/README.md"],
        "wrappers": [".set_env:0:-", "engine::env_flag:0"],
        "prefix": "ENGINE_",
        "findings": [("undocumented", "ENGINE_NO_MMAP"), ("undocumented", "ENGINE_VERBOSE")],
    },
    "vllm_like": {
        "doc_registry": ["vllm/envs.py:environment_variables"],
        "doc": ["docs/env_vars.md"],
        "prefix": "SERVE_",
        "findings": [("undocumented", "SERVE_TRACE_FUNCTION")],
        "no_doc_page_entries": True,
    },
    "ggml_like": {
        "doc": ["ENV.md"],
        "wrappers": ["tl_cuda_env_int:0", "tl_sycl_get_env:0"],
        "prefix": ["TL_", "ET_"],
        "findings": [],
    },
}


def _config(name: str, **extra: object) -> EnvdocConfig:
    settings = dict(TREES[name])
    overrides = {
        "wrappers": settings.get("wrappers"),
        "doc_registry": settings.get("doc_registry"),
        "doc": settings["doc"] if not settings.get("no_doc_page_entries") else None,
        "prefix": settings["prefix"],
        "jobs": 1,
        **extra,
    }
    if overrides["doc"] is None and not overrides["doc_registry"]:
        overrides["doc"] = settings["doc"]
    return EnvdocConfig.load(HERE / name, overrides)


@pytest.mark.parametrize("name", sorted(TREES))
def test_every_read_name_is_found_and_nothing_else(name: str) -> None:
    truth = set((HERE / "truth" / f"{name}.txt").read_text().split())
    report = run_envdoc(HERE / name, _config(name, prefix=""))
    found = {read.name for read in report.reads if read.name}
    assert sorted(truth - found) == [], "missed (false negatives)"
    assert sorted(found - truth) == [], "reported as read but not read (false positives)"


@pytest.mark.parametrize("name", sorted(TREES))
def test_the_projects_own_doc_page_is_read_without_warnings_and_gives_the_expected_verdict(name: str) -> None:
    report = run_envdoc(HERE / name, _config(name))
    assert report.doc_warnings == []
    assert [(finding.kind, finding.name) for finding in report.findings] == TREES[name]["findings"]


def test_a_doc_page_that_only_includes_the_registry_is_a_warning_naming_the_registry_until_it_is_named() -> None:
    alone = run_envdoc(HERE / "vllm_like", EnvdocConfig.load(HERE / "vllm_like", {"doc": "docs/env_vars.md", "prefix": "SERVE_"}))
    [warning] = alone.doc_warnings
    assert warning.startswith("docs/env_vars.md: no env var entry recognised; tried ")
    assert warning.endswith("it includes the code file vllm/envs.py: if a dict there holds the names, name it with "
                            "--doc-registry vllm/envs.py:DICT")
    assert {finding.kind for finding in alone.findings} == {"undocumented"}
    done = subprocess.run(
        [VTGATE, "envdoc", "--prefix", "SERVE_", "--doc-registry", "vllm/envs.py:environment_variables"],
        cwd=HERE / "vllm_like", capture_output=True, text=True, timeout=120, env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 1, done.stderr
    assert "SERVE_TRACE_FUNCTION at vllm/worker.py:10" in done.stderr
    assert "0 stale, 0 default mismatches" in done.stderr
