"""Re-measure envdoc on a real checkout against the truth lists in truth/real/ (see README.md):
lines scanned, truth names, names found, false negatives, false positives, wall time, and the
verdict on the project's own env doc page.

    python tests/envdoc/realworld/measure.py accelerate /path/to/accelerate-checkout
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from vtgate.envdoc import EnvdocConfig, EnvdocError, run_envdoc
from vtgate.envdoc.scan import discover

HERE = Path(__file__).parent
TREES = {
    "accelerate": {
        "truth": "huggingface-accelerate.txt",
        "wrappers": [
            "accelerate.utils.environment.get_int_from_env:0",
            "accelerate.utils.environment.parse_flag_from_env:0",
            "accelerate.utils.environment.parse_choice_from_env:0",
            "accelerate.test_utils.testing.parse_flag_from_env:0",
        ],
        "doc": {"doc": "docs/source/package_reference/utilities.md", "prefix": "ACCELERATE_"},
    },
    "ggml": {
        "truth": "ggml-org-ggml.txt",
        "wrappers": ["get_env_as_lowercase:0", "ggml_cuda_ar_env_u64:0", "ggml_sycl_get_env:0"],
        "doc": None,  # ggml has no env var page
    },
    "llama.cpp": {
        "truth": "ggml-org-llama.cpp.txt",
        "wrappers": [".set_env:0:-", "get_env_as_lowercase:0", "get_sycl_env:0", "get_model_name_from_env_path:0"],
        "doc": {"doc": "tools/server/README.md", "prefix": "LLAMA_"},
    },
    "vllm": {
        "truth": "vllm-project-vllm.txt",
        "wrappers": [
            "vllm.envs.env_with_choices:0",
            "vllm.envs.env_list_with_choices:0",
            "vllm.envs.env_set_with_choices:0",
            "vllm.envs.get_env_or_set_default:0",
        ],
        "doc": {"doc_registry": "vllm/envs.py:environment_variables", "prefix": "VLLM_"},
    },
    "vllm-ascend": {
        "truth": "vllm-project-vllm-ascend.txt",
        "wrappers": [],
        "doc": {"doc_registry": "vllm_ascend/envs.py:env_variables", "prefix": "VLLM_ASCEND_"},
    },
    # the five trees of issue 24's trial (README.md section 2); each scans one language, as measured
    "LocalAI": {
        "truth": "mudler-LocalAI.txt",
        "include": ["*.go"],
        "wrappers": ["libraryName:0", "itEnvOr:0", "envInt32:0", "envFloat32:0", "vllmEnvOrDefault:0"],
        "doc": {"doc": "docs/content/reference/cli-reference.md", "prefix": "LOCALAI_"},
    },
    "candle": {
        "truth": "huggingface-candle.txt",
        "include": ["*.rs"],
        "wrappers": ["get_env_bool:0"],
        "doc": None,  # candle has no env var page
    },
    "mistral.rs": {
        "truth": "EricLBuehler-mistral.rs.txt",
        "include": ["*.rs"],
        "wrappers": ["env_flag:0", "blockwise_fp8_bench_iterations:0", "parse_env_usize:0", "push_env_paths:1"],
        "doc": {"doc": "docs/src/content/docs/reference/environment-variables.md", "prefix": "MISTRALRS_"},
    },
    "mxnet": {
        "truth": "apache-mxnet.txt",
        "include": ["*.c", "*.cc", "*.cpp", "*.cxx", "*.h", "*.hpp", "*.cu", "*.cuh"],
        "wrappers": ["dmlc::GetEnv:0", "is_env_set:0", "SelectPlan:8"],
        "doc": {"doc": "docs/static_site/src/pages/api/faq/env_var.md", "prefix": "MXNET_"},
    },
    "DeepSpeed": {
        "truth": "deepspeedai-DeepSpeed.txt",
        "include": ["*.py"],
        "wrappers": ["is_env_set:0", "get_env_if_set:0"] + [f"._env_paths:{i}:-" for i in range(7)],
        "doc": {"doc": "docs/_tutorials/advanced-install.md", "prefix": "DS_"},
    },
}


def main(name: str, checkout: Path) -> None:
    tree = TREES[name]
    truth = set((HERE / "truth" / "real" / tree["truth"]).read_text().split())
    empty = HERE / "truth" / "empty-table.md"
    include = tree.get("include", [])
    files = discover(checkout, ["."], include, [])
    lines = sum(path.read_bytes().count(b"\n") for path, _ in files)
    for label, wrappers in (("with wrappers", tree["wrappers"]), ("no wrappers", [])):
        config = EnvdocConfig.load(checkout, {"prefix": "", "doc": str(empty), "wrappers": wrappers or None,
                                                 "include": include or None})
        started = time.perf_counter()
        report = run_envdoc(checkout, config)
        seconds = time.perf_counter() - started
        found = {read.name for read in report.reads if read.name}
        print(
            f"{name} ({label}): {len(files)} files, {lines} lines; truth {len(truth)}, found {len(found & truth)}, "
            f"false negatives {sorted(truth - found)}, false positives {sorted(found - truth)}, {seconds:.2f} s"
        )
    if tree["doc"]:
        try:
            overrides = {**tree["doc"], "wrappers": tree["wrappers"] or None, "include": include or None}
            report = run_envdoc(checkout, EnvdocConfig.load(checkout, overrides))
            print(f"doc verdict: {'ok' if report.ok else 'FAILED'}: {report.summary}; doc warnings {len(report.doc_warnings)}")
        except EnvdocError as error:
            print(f"doc verdict: configuration error: {error}")


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]).resolve())
