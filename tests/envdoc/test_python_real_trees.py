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


def test_a_loop_variable_bound_again_by_a_later_loop_reads_the_literals_of_its_own_loop(tmp_path: Path) -> None:
    # deepspeedai/DeepSpeed op_builder/xpu/builder.py @ edaa72212672 (Apache-2.0)
    (tmp_path / "builder.py").write_text(
        "import os\n\n\ndef jit_load():\n    saved_env = {}\n    for var in ('CXX', 'LIBRARY_PATH', 'CPATH'):\n"
        "        saved_env[var] = os.environ.get(var)\n    os.environ['CXX'] = 'icpx'\n"
        "    for var, value in saved_env.items():\n        if value is None:\n            os.environ.pop(var, None)\n"
        "    return os.environ.get(var)\n"
    )
    (tmp_path / "none.md").write_text("| name | effect |\n|---|---|\n")
    report = run_envdoc(tmp_path, EnvdocConfig.load(tmp_path, {"doc": "none.md", "prefix": ""}))
    assert sorted((read.name, read.line) for read in report.reads if read.name) == [
        ("CPATH", 7), ("CXX", 7), ("LIBRARY_PATH", 7)
    ]
    # the later loop's variable (a key of a dict filled at run time) and the use after both loops stay computed
    assert sorted(read.line for read in report.reads if read.name is None) == [11, 12]
