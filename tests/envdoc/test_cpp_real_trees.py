"""Apache MXNet forms found while measuring real trees for issue 24 (tests/envdoc/realworld/README.md,
section 2): a doc page of bare-name bullets, and doc rows whose name the code builds at run time.
Each test holds a few lines extracted from apache/mxnet @ b84609d3fc73 (Apache-2.0), path named."""

from __future__ import annotations

from pathlib import Path

from vtgate.envdoc import EnvdocConfig, run_envdoc
from vtgate.envdoc.doctable import parse_docs


def test_bullets_that_are_the_bare_name_with_the_description_indented_below(tmp_path: Path) -> None:
    # docs/static_site/src/pages/api/faq/env_var.md
    page = tmp_path / "env_var.md"
    page.write_text(
        "## Set the Number of Threads\n\n* MXNET_GPU_WORKER_NTHREADS\n  - Values: Int ```(default=2)```\n"
        "  - The maximum number of threads to use on each GPU.\n* MXNET_GPU_COPY_NTHREADS\n"
        "  - Values: Int ```(default=2)```\n\n## Memory Options\n\n* MXNET_EXEC_ENABLE_INPLACE\n"
        "  - Values: true or false ```(default=true)```\n* NOT_A_ENTRY\n\nSome prose.\n"
    )
    rows = {row.name: row for row in parse_docs([(page, "env_var.md")]).rows}
    assert sorted(rows) == ["MXNET_EXEC_ENABLE_INPLACE", "MXNET_GPU_COPY_NTHREADS", "MXNET_GPU_WORKER_NTHREADS"]
    assert (rows["MXNET_GPU_WORKER_NTHREADS"].default, rows["MXNET_GPU_WORKER_NTHREADS"].line) == ("2", 3)
    assert rows["MXNET_EXEC_ENABLE_INPLACE"].default == "true"


def test_a_row_whose_tail_is_a_literal_of_a_computed_read_is_not_delete_the_row(tmp_path: Path) -> None:
    # src/storage/storage.cc (env_var_name) and src/storage/pooled_storage_manager.h (its read)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "storage.cc").write_text(
        "const std::string env_var_name(const char* dev_type, env_var_type type) {\n"
        '  static const std::array<std::string, 2> name = {\n      "MEM_POOL_TYPE",\n      "MEM_POOL_RESERVE",\n  };\n'
        '  return std::string("MXNET_") + dev_type + "_" + name[type];\n}\n'
        "void f(const char* dev_type) {\n  const auto env_var = env_var_name(dev_type, pool_reserve);\n"
        "  const size_t reserve = dmlc::GetEnv(env_var.c_str(), 5);\n"
        '  int n = dmlc::GetEnv("MXNET_GPU_WORKER_NTHREADS", 2);\n}\n'
    )
    (tmp_path / "env_var.md").write_text(
        "* MXNET_GPU_WORKER_NTHREADS\n  - Values: Int ```(default=2)```\n"
        "* MXNET_GPU_MEM_POOL_RESERVE\n  - Values: Int ```(default=5)```\n"
        "* MXNET_EXEC_ENABLE_INPLACE\n  - Values: true or false ```(default=true)```\n"
    )
    config = EnvdocConfig.load(tmp_path, {"doc": "env_var.md", "prefix": "MXNET_", "wrappers": ["dmlc::GetEnv:0"]})
    stale = {f.name: f.message for f in run_envdoc(tmp_path, config).findings if f.kind == "stale"}
    assert sorted(stale) == ["MXNET_EXEC_ENABLE_INPLACE", "MXNET_GPU_MEM_POOL_RESERVE"]
    assert "delete the row" in stale["MXNET_EXEC_ENABLE_INPLACE"]  # nothing builds it: the advice stands
    assert "delete the row" not in stale["MXNET_GPU_MEM_POOL_RESERVE"]
    assert "'MEM_POOL_RESERVE' is a string literal at src/storage.cc:4" in stale["MXNET_GPU_MEM_POOL_RESERVE"]
    assert "src/storage.cc:10" in stale["MXNET_GPU_MEM_POOL_RESERVE"]
