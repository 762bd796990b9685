"""Go and Rust read forms found missing while measuring real trees for issue 24 (see
tests/envdoc/realworld/README.md, section 2): each test holds a few lines extracted from the tree,
named with its repository, path, commit and license."""

from __future__ import annotations

from pathlib import Path

import pytest
from vtgate.envdoc import EnvdocConfig, run_envdoc
from vtgate.envdoc.doctable import parse_docs
from vtgate.envdoc.model import NONLITERAL_DEFAULT
from vtgate.envdoc.tsscan import available, scan_go_text, scan_rust_text

pytestmark = pytest.mark.skipif(not available(), reason="the envdoc-langs extra (tree-sitter) is part of .[test]")


def test_a_kong_env_tag_lists_several_names_and_caarlos0_options_are_not_names() -> None:
    # mudler/LocalAI core/cli/run.go @ 82c191afadf5 (MIT): alecthomas/kong reads the first set of the list
    scan = scan_go_text(
        "package cli\n\ntype RunCMD struct {\n"
        '\tThreads int `env:"LOCALAI_THREADS,THREADS" short:"t" help:"Number of threads" group:"performance"`\n'
        '\tF16 bool `name:"f16" env:"LOCALAI_F16,F16" help:"Enable GPU acceleration" group:"performance"`\n'
        '\tPort int `env:"APP_PORT,required,notEmpty" envDefault:"3000"`\n'
        '\tKey string `envconfig:"app_key"`\n}\n',
        "core/cli/run.go",
    )
    assert [(read.name, read.line, read.default) for read in scan.reads] == [
        ("LOCALAI_THREADS", 4, None),
        ("THREADS", 4, None),
        ("LOCALAI_F16", 5, None),
        ("F16", 5, None),
        ("APP_PORT", 6, "3000"),
        ("APP_KEY", 7, None),
    ]


def test_rust_reads_inside_another_macros_arguments() -> None:
    # huggingface/candle candle-core/src/quantized/mod.rs, candle-examples/build.rs and
    # candle-examples/examples/bert_single_file_binary/main.rs @ 2a13b0f3ff62 (MIT OR Apache-2.0)
    text = (
        "thread_local! {\n    static DEQUANTIZE_ALL: bool = {\n"
        '        match std::env::var("CANDLE_DEQUANTIZE_ALL") {\n'
        '            Ok(s) => {\n                !s.is_empty() && s != "0"\n            },\n'
        "            Err(_) => false,\n        }\n    }\n}\n"
        'const KEY: &str = "CANDLE_KEY";\n'
        "fn main() {\n"
        '    let config_data = include_bytes!(env!("CANDLE_BUILDTIME_MODEL_CONFIG"));\n'
        '    if let Some(model_rev) = core::option_env!("CANDLE_BUILDTIME_MODEL_REVISION") {}\n'
        '    println!("{}", std::env::var(KEY).unwrap());\n'
        '    println!("cargo:rustc-env=CANDLE_WRITTEN=1");\n'
        '    println!("{:?}", std::env::var("CANDLE_".to_owned() + suffix));\n'
        "}\n"
    )
    scan = scan_rust_text(text, "candle-core/src/quantized/mod.rs")
    assert sorted((read.name, read.line) for read in scan.reads if read.name) == [
        ("CANDLE_BUILDTIME_MODEL_CONFIG", 13),
        ("CANDLE_BUILDTIME_MODEL_REVISION", 14),
        ("CANDLE_DEQUANTIZE_ALL", 3),
        ("CANDLE_KEY", 15),
    ]


def test_a_rust_constant_of_another_crate_names_the_read(tmp_path: Path) -> None:
    # EricLBuehler/mistral.rs mistralrs-sandbox/src/lib.rs and mistralrs-cli/src/commands/serve.rs
    # @ 9e922623f24b (MIT)
    (tmp_path / "mistralrs-sandbox" / "src").mkdir(parents=True)
    (tmp_path / "mistralrs-sandbox" / "src" / "lib.rs").write_text(
        '/// Environment variable naming the sandbox mode.\npub const SANDBOX_ENV_VAR: &str = "MISTRALRS_SANDBOX";\n'
    )
    (tmp_path / "mistralrs-cli" / "src").mkdir(parents=True)
    (tmp_path / "mistralrs-cli" / "src" / "serve.rs").write_text(
        "fn sandbox() -> Option<String> {\n    std::env::var(mistralrs_sandbox::SANDBOX_ENV_VAR).ok()\n}\n"
    )
    (tmp_path / "ENV.md").write_text("| name | effect |\n|---|---|\n| MISTRALRS_SANDBOX | the mode |\n")
    report = run_envdoc(tmp_path, EnvdocConfig.load(tmp_path, {"doc": "ENV.md", "prefix": "MISTRALRS_"}))
    assert [(read.name, read.file, read.line) for read in report.reads] == [
        ("MISTRALRS_SANDBOX", "mistralrs-cli/src/serve.rs", 2)
    ]
    assert report.findings == []


def test_a_kong_default_with_an_interpolation_is_not_compared() -> None:
    # mudler/LocalAI core/cli/run.go @ 82c191afadf5 (MIT)
    scan = scan_go_text(
        'package cli\n\ntype RunCMD struct {\n\tModelsPath string `env:"LOCALAI_MODELS_PATH,MODELS_PATH" '
        'type:"path" default:"${basepath}/models" help:"Path containing models" group:"storage"`\n}\n',
        "core/cli/run.go",
    )
    assert [(read.name, read.default_kind, read.default) for read in scan.reads] == [
        ("LOCALAI_MODELS_PATH", NONLITERAL_DEFAULT, "${basepath}/models"),
        ("MODELS_PATH", NONLITERAL_DEFAULT, "${basepath}/models"),
    ]


def test_a_table_cell_with_several_dollar_names_and_an_empty_cell(tmp_path: Path) -> None:
    # mudler/LocalAI docs/content/reference/cli-reference.md @ 82c191afadf5 (MIT)
    page = tmp_path / "cli-reference.md"
    page.write_text(
        "| Parameter | Default | Description | Environment Variable |\n"
        "|-----------|---------|-------------|----------------------|\n"
        "| `-h, --help` | | Show context-sensitive help | |\n"
        "| `--log-level` | `info` | Set the level of logs to output | `$LOCALAI_LOG_LEVEL` |\n"
        "| `--debug` | `false` | **DEPRECATED** - Use `--log-level=debug` instead. | `$LOCALAI_DEBUG`, `$DEBUG` |\n"
    )
    docset = parse_docs([(page, "cli-reference.md")])
    assert [(row.name, row.line) for row in docset.rows] == [("LOCALAI_LOG_LEVEL", 4), ("LOCALAI_DEBUG", 5), ("DEBUG", 5)]
    assert docset.warnings == []


def test_a_dockerfile_variant_is_a_build_file_for_stale_rows(tmp_path: Path) -> None:
    # EricLBuehler/mistral.rs Dockerfile.cuda-13.0-ubi9 and docs/src/content/docs/reference/environment-variables.md
    # @ 9e922623f24b (MIT)
    (tmp_path / "main.rs").write_text('fn main() { let _ = std::env::var("MISTRALRS_DEBUG"); }\n')
    (tmp_path / "Dockerfile.cuda-13.0-ubi9").write_text("ARG RAYON_NUM_THREADS=4\n")
    (tmp_path / "ENV.md").write_text(
        "| Variable | Purpose |\n|---|---|\n| `MISTRALRS_DEBUG` | debug |\n"
        "| `RAYON_NUM_THREADS` | Sets the default CPU worker count used by Candle and Rayon |\n"
    )
    report = run_envdoc(tmp_path, EnvdocConfig.load(tmp_path, {"doc": "ENV.md", "prefix": "MISTRALRS_"}))
    [stale] = [f for f in report.findings if f.kind == "stale"]
    assert "also appears in Dockerfile.cuda-13.0-ubi9:1 (Dockerfile" in stale.message
    assert "delete the row" not in stale.message
