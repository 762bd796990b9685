"""The doc pages: tables in any column order, bulleted definition lists, a heading per variable,
inline `(env: X)` notes, families with wildcards spelled the ways people spell them, a code registry;
rows that cannot be read are warnings (the run goes on), a doc with nothing recognisable is an error."""

from __future__ import annotations

import pytest
from vtgate.envdoc import EnvdocError
from vtgate.envdoc.doctable import parse_doc, parse_docs


def _entries(project, text: str, path: str = "docs/ENVIRONMENT.md"):
    written = project.write(path, text)
    docset = parse_docs([(written, path)])
    return docset, [(row.name, row.default_value if row.compare_default else "?", row.line) for row in docset.rows]


def test_rows_with_backticks_families_and_escaped_pipes(project) -> None:
    path = project.doc(
        ("`VT_A`", "`1`"),
        ("VT_FAMILY_*", "(unset)"),
        "| VT_PIPE | `a\\|b` | splits on \\| | no |",
    )
    rows = parse_doc(path, "docs/ENVIRONMENT.md")
    assert [(row.name, row.default_value, row.is_pattern, row.line) for row in rows] == [
        ("VT_A", "1", False, 5),
        ("VT_FAMILY_*", None, True, 6),
        ("VT_PIPE", "a|b", False, 7),
    ]


def test_quoted_and_unset_defaults_are_normalised(project) -> None:
    rows = parse_doc(project.doc(("VT_Q", '`"1"`'), ("VT_U", "unset"), ("VT_E", "—")))
    assert [row.default_value for row in rows] == ["1", None, None]


def test_three_column_table_with_variable_header_and_default_in_the_middle(project) -> None:
    docset, entries = _entries(
        project,
        "## Runtime\n\n| Variable | Default | Description |\n| :--- | :---: | --- |\n"
        "| `PYTORCH_NO_CUDA_MEMORY_CACHING` | `0` | disable the caching allocator |\n"
        "| `TORCH_SHOW_CPP_STACKTRACES` | unset | print C++ stack traces |\n",
    )
    assert entries == [("PYTORCH_NO_CUDA_MEMORY_CACHING", "0", 5), ("TORCH_SHOW_CPP_STACKTRACES", None, 6)]
    assert docset.warnings == []


def test_five_column_table_in_another_order_and_a_table_without_default_column(project) -> None:
    text = (
        "| Description | Type | Environment variable | Since | Default |\n|---|---|---|---|---|\n"
        "| threads | int | `APP_THREADS` | 1.2 | `4` |\n\n"
        "Later, a second table:\n\n| Name | Meaning |\n|---|---|\n| APP_TRACE | trace every call |\n"
    )
    docset, entries = _entries(project, text)
    assert entries == [("APP_THREADS", "4", 3), ("APP_TRACE", "?", 9)]
    assert docset.tables == 2


def test_tables_without_a_name_column_and_prose_are_ignored(project) -> None:
    text = (
        "# Knobs\n\nSome prose | with a pipe.\n\n| other | table |\n|---|---|\n| x | y |\n\n"
        "| name | default | effect | bit-exact with default? |\n|---|---|---|---|\n| VT_ONLY | 0 | e | yes |\n\nMore prose.\n"
    )
    _, entries = _entries(project, text)
    assert entries == [("VT_ONLY", "0", 11)]


def test_family_wildcards_anywhere_in_every_common_spelling(project) -> None:
    text = (
        "| name | default | effect |\n|---|---|---|\n"
        "| VT_LAYER_*_SKIP | 0 | skip layer N |\n| `LLAMA_ARG_<NAME>` | - | any CLI flag |\n"
        "| `{PREFIX}_DEBUG` | - | debug a component |\n| VT_ARM_{arm} | 0 | select an arm |\n"
    )
    rows = parse_docs([(project.write("docs/ENVIRONMENT.md", text), "docs/ENVIRONMENT.md")]).rows
    assert [row.name for row in rows] == ["VT_LAYER_*_SKIP", "LLAMA_ARG_*", "*_DEBUG", "VT_ARM_*"]
    layer, llama, debug, arm = rows
    assert layer.covers("VT_LAYER_3_SKIP") and not layer.covers("VT_LAYER_3")
    assert llama.covers("LLAMA_ARG_THREADS") and not llama.covers("LLAMA_CACHE")
    assert debug.covers("NCCL_DEBUG") and not debug.covers("NCCL_DEBUG_FILE")
    assert arm.covers("VT_ARM_FMA")
    # computed names: the known literal ends must agree with the family's
    assert layer.covers_dynamic("VT_LAYER_", "_SKIP") and not layer.covers_dynamic("VT_LAYER_", "")
    assert debug.covers_dynamic("", "_DEBUG") and not debug.covers_dynamic("", "")
    assert arm.covers_dynamic("VT_ARM_", "")


def test_bulleted_definition_list(project) -> None:
    text = (
        "# Environment\n\n- `HF_HUB_OFFLINE` (default `0`): never touch the network.\n"
        "* **`HF_HOME`**: where the cache lives, default: `~/.cache/huggingface`\n"
        "- `TRANSFORMERS_VERBOSITY`: how chatty the logs are\n"
        "- `--not-an-env-var`: a CLI flag listed nearby\n- plain prose bullet with `code`\n"
        "- `HF_HUB_OFFLINE=1` means offline (an example of a value, not a second entry)\n"
    )
    docset, entries = _entries(project, text)
    assert entries == [
        ("HF_HUB_OFFLINE", "0", 3),
        ("HF_HOME", "~/.cache/huggingface", 4),
        ("TRANSFORMERS_VERBOSITY", "?", 5),
    ]
    assert docset.warnings == []


def test_heading_per_variable_takes_the_default_from_its_section(project) -> None:
    text = (
        "# Env vars\n\n## Scheduling\n\n### `ENGINE_THREADS`\n\nNumber of worker threads.\n"
        "Default: `8`.\n\n### ENGINE_TRACE\n\nTurn tracing on. No default.\n\n### Usage notes\n\nprose\n"
    )
    _, entries = _entries(project, text)
    assert entries == [("ENGINE_THREADS", "8", 5), ("ENGINE_TRACE", "?", 10)]


def test_inline_env_notes_in_a_cli_table(project) -> None:
    text = (
        "| Argument | Explanation |\n| -------- | ----------- |\n"
        "| `-t, --threads N` | number of threads (default: -1)<br/>(env: LLAMA_ARG_THREADS) |\n"
        "| `-h, --help` | print usage and exit |\n"
        "| `--host HOST` | ip address to listen (default: 127.0.0.1)<br/>(env: LLAMA_ARG_HOST) |\n"
    )
    docset, entries = _entries(project, text, "tools/server/README.md")
    assert entries == [("LLAMA_ARG_THREADS", "?", 3), ("LLAMA_ARG_HOST", "?", 5)]
    assert docset.warnings == []


def test_a_row_that_cannot_be_read_is_a_warning_naming_its_line_and_the_rest_is_read(project) -> None:
    path = project.doc(("VT_OK", "1"), "| VT_SHORT | 1 | effect |", ("VT BAD NAME", "1"), ("VT_LATER", "2"))
    docset = parse_docs([(path, "docs/ENVIRONMENT.md")])
    assert [row.name for row in docset.rows] == ["VT_OK", "VT_LATER"]
    assert docset.warnings[0].startswith("docs/ENVIRONMENT.md:6: table row has 3 cells, its header has 4")
    assert docset.warnings[1].startswith("docs/ENVIRONMENT.md:7: 'VT BAD NAME' is not an env var name")


def test_a_second_row_for_a_name_is_a_warning_naming_both_places(project) -> None:
    path = project.doc(("VT_TWICE", "1"), ("VT_OTHER", "0"), ("VT_TWICE", "2"))
    docset = parse_docs([(path, "docs/ENVIRONMENT.md")])
    assert [(row.name, row.default) for row in docset.rows] == [("VT_TWICE", "1"), ("VT_OTHER", "0")]
    assert docset.warnings == [
        "docs/ENVIRONMENT.md:7: second entry for VT_TWICE (first at docs/ENVIRONMENT.md:5); it was skipped"
    ]


def test_docs_split_over_several_files_and_a_folder(project) -> None:
    first = project.write("docs/env/runtime.md", "| Variable | Default |\n|---|---|\n| APP_A | 1 |\n")
    project.write("docs/env/build.md", "- `APP_B` (default `0`): build flag\n")
    project.write("docs/env/notes.txt", "| Variable | Default |\n|---|---|\n| APP_IGNORED | 1 |\n")
    other = project.write("README.md", "### APP_C\n\nDefault: `x`\n")
    docset = parse_docs([(first.parent, "docs/env"), (other, "README.md")])
    assert [(row.name, row.file, row.line) for row in docset.rows] == [
        ("APP_B", "docs/env/build.md", 1),
        ("APP_A", "docs/env/runtime.md", 3),
        ("APP_C", "README.md", 1),
    ]


def test_missing_doc_is_an_error_naming_the_path_and_the_fix(project) -> None:
    with pytest.raises(EnvdocError, match=r"docs/ENVIRONMENT\.md does not exist: create it with a table") as caught:
        parse_doc(project.root / "docs" / "ENVIRONMENT.md", "docs/ENVIRONMENT.md")
    assert "--doc FILE" in str(caught.value)


def test_binary_doc_is_an_error_naming_the_file(project) -> None:
    path = project.write("docs/logo.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(EnvdocError, match=r"docs/logo\.md is a binary file"):
        parse_doc(path, "docs/logo.md")


def test_doc_with_nothing_recognisable_is_a_warning_naming_the_formats_tried_not_an_abort(project) -> None:
    path = project.write("docs/ENVIRONMENT.md", "# Knobs\n\n| a | b |\n|---|---|\n| x | y |\n\nSet THREADS to 4.\n")
    docset = parse_docs([(path, "docs/ENVIRONMENT.md")])
    assert docset.rows == []
    [warning] = docset.warnings
    assert warning.startswith("docs/ENVIRONMENT.md: no env var entry recognised; tried a table with a name column")
    assert ".. envvar:: NAME" in warning and "code spans of prose" in warning


def test_an_empty_knob_table_is_recognised_and_has_no_rows(project) -> None:
    assert parse_doc(project.doc()) == []


VLLM_STYLE_REGISTRY = '''
import os
from typing import Any, Callable

if TYPE_CHECKING:
    VLLM_HOST_IP: str = ""

environment_variables: dict[str, Callable[[], Any]] = {
    # where the host lives
    "VLLM_HOST_IP": lambda: os.getenv("VLLM_HOST_IP", ""),
    "VLLM_PORT": lambda: int(os.getenv("VLLM_PORT", "0")) if "VLLM_PORT" in os.environ else None,
    "VLLM_USE_MODELSCOPE": lambda: os.environ.get("VLLM_USE_MODELSCOPE", "False").lower() == "true",
    "VLLM_CACHE_ROOT": lambda: os.path.expanduser(os.getenv("VLLM_CACHE_ROOT", get_default_cache_root())),
}
'''


def test_a_code_registry_dict_is_the_documented_set_with_literal_defaults(project) -> None:
    path = project.write("vllm/envs.py", VLLM_STYLE_REGISTRY)
    rows = parse_docs([], [(path, "vllm/envs.py", "environment_variables")]).rows
    assert [(row.name, row.default_value if row.compare_default else "?", row.line) for row in rows] == [
        ("VLLM_HOST_IP", None, 10),
        ("VLLM_PORT", "0", 11),
        ("VLLM_USE_MODELSCOPE", "False", 12),
        ("VLLM_CACHE_ROOT", "?", 13),
    ]


def test_a_registry_that_is_not_there_is_an_error_with_the_spelling(project) -> None:
    path = project.write("vllm/envs.py", VLLM_STYLE_REGISTRY)
    with pytest.raises(EnvdocError, match="has no module-level dict named env_vars"):
        parse_docs([], [(path, "vllm/envs.py", "env_vars")])


def test_a_table_of_something_else_with_a_name_column_is_not_read_as_env_vars(project) -> None:
    text = (
        "| Model name | Size |\n|---|---|\n| Llama 3 | 8B |\n| Qwen | 7B |\n\n"
        "| name | default |\n|---|---|\n| APP_A | 1 |\n| bad name | 2 |\n"
    )
    docset, entries = _entries(project, text)
    assert entries == [("APP_A", "1", 8)]
    assert docset.tables == 1
    assert [warning.split(":")[1] for warning in docset.warnings] == ["9"]
