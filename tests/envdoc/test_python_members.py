"""Names held by classes of the tree (issue 24, gap 1). The shapes are extracted from
deepspeedai/DeepSpeed @ edaa72212672 (Apache-2.0): accelerator/cuda_accelerator.py
`def visible_devices_envs(self): return ['CUDA_VISIBLE_DEVICES']` and deepspeed/launcher/runner.py
`visible_devices_env = get_accelerator().visible_devices_envs()[0]; os.environ.get(visible_devices_env, "")`
(a few lines, rewritten as a minimal tree)."""

from __future__ import annotations

from pathlib import Path

from vtgate.envdoc import EnvdocConfig, run_envdoc


def _names(root: Path, wrappers: list[str] | None = None) -> set[str]:
    doc = root / "env.md"
    doc.write_text("| name | default | effect | bit-exact with default? |\n|---|---|---|---|\n")
    report = run_envdoc(root, EnvdocConfig.load(root, {"prefix": "", "doc": str(doc), "wrappers": wrappers}))
    return {read.name for read in report.reads if read.name}


def test_method_return_literals_are_candidate_names(tmp_path: Path) -> None:
    (tmp_path / "acc").mkdir()
    (tmp_path / "acc" / "cuda.py").write_text(
        "class Cuda:\n    def visible_devices_envs(self):\n        return ['CUDA_VISIBLE_DEVICES']\n"
    )
    (tmp_path / "acc" / "npu.py").write_text(
        "class Npu:\n    def visible_devices_envs(self):\n        return ['ASCEND_RT_VISIBLE_DEVICES']\n"
    )
    (tmp_path / "runner.py").write_text(
        "import os\nfrom acc import get_accelerator\n"
        "def main():\n    env = get_accelerator().visible_devices_envs()[0]\n    return os.environ.get(env, '')\n"
    )
    assert {"CUDA_VISIBLE_DEVICES", "ASCEND_RT_VISIBLE_DEVICES"} <= _names(tmp_path)


def test_method_with_a_computed_return_is_not_resolved(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(
        "class A:\n    def envs(self):\n        return ['A_VISIBLE']\n"
        "class B:\n    def envs(self):\n        return [self.computed()]\n"
    )
    (tmp_path / "runner.py").write_text("import os\ndef main(acc):\n    return os.environ.get(acc.envs()[0])\n")
    assert "A_VISIBLE" not in _names(tmp_path)


def test_a_large_files_helper_and_constants_in_blocks_without_a_read_word_still_resolve(tmp_path: Path) -> None:
    """DeepSpeed's setup.py (426 lines) reads ``get_env_if_set(op_envvar(op))`` (named with
    ``--wrapper get_env_if_set:0``) where ``def op_envvar(op):
    return ALL_OPS[op].BUILD_VAR`` mentions no read word: a file over 200 lines is parsed with such
    blocks blanked, and the helper (and a class of constants) must be looked up in the whole file.
    ``DS_BUILD_FlashAttention`` is DeepSpeed's own mixed-case name (op_builder/xpu/flash_attn.py)."""
    (tmp_path / "op_builder").mkdir()
    (tmp_path / "op_builder" / "builders.py").write_text(
        'class CPUAdamBuilder:\n    BUILD_VAR = "DS_BUILD_CPU_ADAM"\n'
        'class FlashAttentionBuilder:\n    BUILD_VAR = "DS_BUILD_FlashAttention"\n'
        'class NotABuilder:\n    BUILD_VAR = None\n'
    )
    filler = "".join(f"def unrelated_{i}(x):\n    return x + {i}\n\n\n" for i in range(60))
    (tmp_path / "setup.py").write_text(
        "import os\nfrom op_builder.all_ops import ALL_OPS\n\n\n"
        "def get_env_if_set(key, default=''):\n    return os.environ.get(key, None) or default\n\n\n"
        + filler
        + "def op_envvar(op_name):\n    assert hasattr(ALL_OPS[op_name], 'BUILD_VAR')\n    return ALL_OPS[op_name].BUILD_VAR\n\n\n"
        + "class Names:\n    HOME = 'DS_HOME_DIR'\n\n\n"
        + "def op_enabled(op_name):\n    env_var = op_envvar(op_name)\n    return int(get_env_if_set(env_var, 0))\n\n\n"
        + "def home():\n    return os.environ.get(Names.HOME)\n"
    )
    assert len((tmp_path / "setup.py").read_text().splitlines()) > 200  # blanking applies
    assert {"DS_BUILD_CPU_ADAM", "DS_BUILD_FlashAttention", "DS_HOME_DIR"} <= _names(tmp_path, ["get_env_if_set:0"])


def test_a_class_attribute_with_a_value_that_is_no_env_name_leaves_the_read_dynamic(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text('class A:\n    NAME = "A_MODE"\nclass B:\n    NAME = "linear layer"\n')
    (tmp_path / "runner.py").write_text("import os\ndef main(op):\n    return os.environ.get(op.NAME)\n")
    assert "A_MODE" not in _names(tmp_path)
