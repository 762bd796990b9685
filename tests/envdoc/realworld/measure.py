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
}


def main(name: str, checkout: Path) -> None:
    tree = TREES[name]
    truth = set((HERE / "truth" / "real" / tree["truth"]).read_text().split())
    empty = HERE / "truth" / "empty-table.md"
    files = discover(checkout, ["."], [], [])
    lines = sum(path.read_bytes().count(b"\n") for path, _ in files)
    for label, wrappers in (("with wrappers", tree["wrappers"]), ("no wrappers", [])):
        config = EnvdocConfig.load(checkout, {"prefix": "", "doc": str(empty), "wrappers": wrappers or None})
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
            overrides = {**tree["doc"], "wrappers": tree["wrappers"] or None}
            report = run_envdoc(checkout, EnvdocConfig.load(checkout, overrides))
            print(f"doc verdict: {'ok' if report.ok else 'FAILED'}: {report.summary}; doc warnings {len(report.doc_warnings)}")
        except EnvdocError as error:
            print(f"doc verdict: configuration error: {error}")


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]).resolve())
