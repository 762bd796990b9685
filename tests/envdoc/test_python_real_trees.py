"""Python forms found while measuring real trees for issue 24 (tests/envdoc/realworld/README.md,
section 2); each test holds a few lines extracted from the tree, named with its source."""

from __future__ import annotations

from pathlib import Path

from vtgate.envdoc import EnvdocConfig, run_envdoc


def test_several_specs_for_one_helper_read_each_position_once(tmp_path: Path) -> None:
    # deepspeedai/DeepSpeed op_builder/evoformer_attn.py @ edaa72212672 (Apache-2.0)
    (tmp_path / "evoformer_attn.py").write_text(
        "import os\n\n\nclass EvoformerAttnBuilder:\n\n    @staticmethod\n    def _env_paths(*names):\n"
        "        paths = []\n        for name in names:\n            value = os.environ.get(name)\n"
        "            if not value:\n                continue\n            paths.append(value)\n        return paths\n\n"
        "    def candidates(self):\n"
        '        return self._env_paths("CPATH", "CPLUS_INCLUDE_PATH", "C_INCLUDE_PATH")\n'
    )
    wrappers = ["._env_paths:0:-", "._env_paths:1:-", "._env_paths:2:-", "._env_paths:0:-"]
    config = EnvdocConfig.load(tmp_path, {"doc": str(tmp_path / "none.md"), "prefix": "", "wrappers": wrappers})
    (tmp_path / "none.md").write_text("| name | effect |\n|---|---|\n")
    report = run_envdoc(tmp_path, config)
    assert sorted((read.name, read.line) for read in report.reads if read.name) == [
        ("CPATH", 17), ("CPLUS_INCLUDE_PATH", 17), ("C_INCLUDE_PATH", 17)
    ]
    assert report.unmatched_wrappers == []
