"""Names held by classes of the tree (issue 24, gap 1). The shapes are extracted from
deepspeedai/DeepSpeed @ edaa72212672 (Apache-2.0): accelerator/cuda_accelerator.py
`def visible_devices_envs(self): return ['CUDA_VISIBLE_DEVICES']` and deepspeed/launcher/runner.py
`visible_devices_env = get_accelerator().visible_devices_envs()[0]; os.environ.get(visible_devices_env, "")`
(a few lines, rewritten as a minimal tree)."""

from __future__ import annotations

from pathlib import Path

from vtgate.envdoc import EnvdocConfig, run_envdoc


def _names(root: Path) -> set[str]:
    doc = root / "env.md"
    doc.write_text("| name | default | effect | bit-exact with default? |\n|---|---|---|---|\n")
    report = run_envdoc(root, EnvdocConfig.load(root, {"prefix": "", "doc": str(doc)}))
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
