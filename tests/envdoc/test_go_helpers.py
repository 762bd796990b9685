"""Go helpers whose ``os.Getenv`` name is built from a parameter, resolved at their call sites in
the same package: LocalAI's ``resolveFaceFixture(workDir, "BACKEND_TEST_FACE_IMAGE_1", ..)`` reading
``prefix + "_FILE"`` and ``prefix + "_URL"``, and ``libraryName`` defined in ``main.go`` and called
from ``abi_test.go`` (excerpts under tests/envdoc/realworld/issue24/go_helpers/, MIT, each file's
first line names its source), with traps of our own that must not count."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from vtgate.envdoc import EnvdocConfig, run_envdoc
from vtgate.envdoc.tsscan import available

HERE = Path(__file__).parent / "realworld" / "issue24" / "go_helpers"

pytestmark = pytest.mark.skipif(not available(), reason="the envdoc-langs extra (tree-sitter) is part of .[test]")


def _reads(tmp_path: Path) -> dict[str, list[tuple[str, int, str]]]:
    tree = tmp_path / "tree"
    shutil.copytree(HERE, tree)
    (tree / "ENV.md").write_text("| name | effect |\n|---|---|\n| NOBODY | - |\n")
    report = run_envdoc(tree, EnvdocConfig.load(tree, {"doc": "ENV.md", "prefix": ""}))
    found: dict[str, list[tuple[str, int, str]]] = {}
    for read in report.reads:
        if read.name:
            found.setdefault(read.name, []).append((read.file, read.line, read.form))
    return found


def test_a_parameter_between_literals_is_read_under_each_literal_argument_of_its_callers(tmp_path: Path) -> None:
    found = _reads(tmp_path)
    fixtures = [f"BACKEND_TEST_{kind}_{suffix}" for kind in ("FACE_IMAGE_1", "FACE_IMAGE_2", "FACE_IMAGE_3",
                                                               "FACE_SPOOF_IMAGE", "VOICE_AUDIO_1", "VOICE_AUDIO_2",
                                                               "VOICE_AUDIO_3") for suffix in ("FILE", "URL")]
    for name in fixtures:
        assert name in found, name
    assert found["BACKEND_TEST_FACE_IMAGE_1_FILE"] == [
        ("e2ebackends/backend_test.go", 6, "helper resolveFaceFixture -> os.Getenv (e2ebackends/backend_test.go:34) (Go)")
    ]
    assert found["BACKEND_TEST_FACE_IMAGE_1_URL"][0][2].endswith("(e2ebackends/backend_test.go:37) (Go)")
    # a plain parameter, in the same file (envFloat32 is not in the excerpt: its call is not a helper's)
    assert "BACKEND_TEST_VERIFY_DISTANCE_CEILING" not in found


def test_a_helper_defined_in_one_file_of_the_package_is_resolved_in_another(tmp_path: Path) -> None:
    found = _reads(tmp_path)
    for name, line in (("NEMO_SPEECH_ASR_LIBRARY", 8), ("NEMO_SPEECH_TTS_LIBRARY", 9), ("NEMO_SPEECH_NMT_LIBRARY", 10)):
        assert found[name] == [("nemo/abi_test.go", line, "helper libraryName -> os.Getenv (nemo/main.go:8) (Go)")]


def test_no_name_is_taken_from_another_package_a_rebound_parameter_a_closure_or_two_parameters(tmp_path: Path) -> None:
    found = _reads(tmp_path)
    assert not [name for name in found if name.startswith("NOT_READ")]
    assert "A" not in found and "B" not in found and "AB" not in found
    expected = {f"BACKEND_TEST_{k}_{s}" for k in ("FACE_IMAGE_1", "FACE_IMAGE_2", "FACE_IMAGE_3", "FACE_SPOOF_IMAGE",
                                                  "VOICE_AUDIO_1", "VOICE_AUDIO_2", "VOICE_AUDIO_3") for s in ("FILE", "URL")}
    expected |= {"NEMO_SPEECH_ASR_LIBRARY", "NEMO_SPEECH_TTS_LIBRARY", "NEMO_SPEECH_NMT_LIBRARY"}
    assert set(found) == expected


RUST = Path(__file__).parent / "realworld" / "issue24" / "rust_helpers"


def _rust_reads(tmp_path: Path) -> dict[str, list[tuple[str, int, str]]]:
    tree = tmp_path / "rust"
    shutil.copytree(RUST, tree)
    (tree / "ENV.md").write_text("| name | effect |\n|---|---|\n| NOBODY | - |\n")
    report = run_envdoc(tree, EnvdocConfig.load(tree, {"doc": "ENV.md", "prefix": ""}))
    found: dict[str, list[tuple[str, int, str]]] = {}
    for read in report.reads:
        if read.name:
            found.setdefault(read.name, []).append((read.file, read.line, read.form))
    return found


def test_a_rust_helper_is_read_at_its_calls_with_constants_and_over_a_loop_of_literals(tmp_path: Path) -> None:
    found = _rust_reads(tmp_path)
    assert found["MISTRALRS_CUDA_GRAPHS"] == [
        ("mistralrs-core/src/perf_flags.rs", 25, "helper env_flag -> std::env::var (mistralrs-core/src/perf_flags.rs:11) (Rust)")
    ]
    assert "MISTRALRS_FLASHINFER_DECODE" in found
    for name in ("ASDF_DATA_DIR", "ASDF_DIR", "BUN_INSTALL", "CONDA_PREFIX"):  # for var in DEVELOPER_ROOT_ENV
        assert [(file, line) for file, line, _ in found[name]] == [("mistralrs-sandbox/src/lib.rs", 17)], name


def test_a_pub_rust_helper_is_followed_where_its_module_is_used_by_name(tmp_path: Path) -> None:
    found = _rust_reads(tmp_path)
    assert found["CANDLE_METAL_ENABLE_FAST_MATH"] == [
        ("candle-metal-kernels/src/kernel.rs", 8,
         "helper get_env_bool -> std::env::var (candle-metal-kernels/src/utils.rs:5) (Rust)")
    ]


def test_no_rust_name_from_another_crates_helper_a_shadowed_parameter_or_a_closure(tmp_path: Path) -> None:
    found = _rust_reads(tmp_path)
    assert not [name for name in found if name.startswith("NOT_READ")]
    assert found["PRIVATE_HELPER_OWN_FILE"][0][:2] == ("other-crate/src/traps.rs", 8)
