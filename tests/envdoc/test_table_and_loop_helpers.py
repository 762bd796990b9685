"""Helper arguments taken from the keys of dict literals and from loops (issue 24, round c): a
self-recursive helper walking a nested dict literal (poetry's ``Config.get("virtualenvs.options")``
on a license-headed excerpt under tests/envdoc/realworld/issue24/poetry_table_tree/, and a planted
tree of our own spelling), a ``for`` over a literal tuple / a dict literal's keys, a nested function
walking a dict literal, a method called with a local holding a literal; and the near-misses that
must read nothing (dict keys that never reach the helper, data that is not a literal, a helper that
does not recurse, a local bound twice)."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

from vtgate.envdoc import EnvdocConfig, EnvdocReport, run_envdoc

POETRY = Path(__file__).parent / "realworld" / "issue24" / "poetry_table_tree"
NONE_DOC = "| name | effect |\n|---|---|\n| ZZ_NONE | none |\n"


def _run(root: Path) -> EnvdocReport:
    (root / "ENV.md").write_text(NONE_DOC)
    return run_envdoc(root, EnvdocConfig.load(root, {"sources": ["src"], "doc": "ENV.md", "prefix": "", "jobs": 1}))


def _names(report: EnvdocReport) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for read in report.reads:
        label = read.name or f"{read.prefix}*{read.suffix}"
        found.setdefault(label, set()).add(f"{read.file}:{read.line}")
    return found


def _write(root: Path, files: dict[str, str]) -> Path:
    for relpath, text in files.items():
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def test_poetry_recursion_into_a_table_of_the_default_config_reads_each_key(tmp_path: Path) -> None:
    shutil.copytree(POETRY, tmp_path / "t")
    found = _names(_run(tmp_path / "t"))
    call = {"src/poetry/utils/env/env_manager.py:26"}  # config.get("virtualenvs.options")
    assert found == {
        "POETRY_*": {"src/poetry/config/config.py:82"},  # the helper's own read, dynamic
        "POETRY_VIRTUALENVS_OPTIONS": call,
        "POETRY_VIRTUALENVS_OPTIONS_ALWAYS_COPY": call,
        "POETRY_VIRTUALENVS_OPTIONS_SYSTEM_SITE_PACKAGES": call,
        "POETRY_VIRTUALENVS_OPTIONS_NO_PIP": call,
    }


SETTINGS = """\
    import copy
    import json
    import os

    DEFAULTS = {
        "cache": {"dir": None, "size": {"soft": 1, "hard": 2}},
        "debug": False,
    }


    class Settings:
        def __init__(self):
            self._data = copy.deepcopy(DEFAULTS)

        def read(self, key):
            name = "APP_" + key.upper().replace(".", "_")
            found = os.environ.get(name)
            if found is not None:
                return found
            node = self._data
            for part in key.split("."):
                node = node[part]
            if isinstance(node, dict):
                return {k: self.read(key + "." + k) for k in node}
            return node

        def verbose(self):
            key = "log.verbose"
            return self.read(key)

        def twice(self):
            other = "log.first"
            other = "log.second"
            return self.read(other)


    class Loaded:
        # the same walk over data that is not a literal: only the called name itself
        def __init__(self, path):
            self._data = json.load(open(path))

        def fetch(self, key):
            found = os.environ.get("LOADED_" + key.upper().replace(".", "_"))
            if found is not None:
                return found
            node = self._data
            for part in key.split("."):
                node = node[part]
            if isinstance(node, dict):
                return {k: self.fetch(key + "." + k) for k in node}
            return node


    class Plain:
        TABLE = {"cache": {"dir": None}}

        def value(self, key):
            # a dict literal in the class, but no recursion into it: only the called name
            return os.environ.get("PLAIN_" + key.upper().replace(".", "_"))
    """

CLI = """\
    from app.settings import Loaded, Plain, Settings

    LIMITS = {"max_jobs": 4, "timeout": 30}
    COLORS = {"red": 1, "blue": 2}


    def main(settings: Settings, loaded: Loaded, plain: Plain, load):
        settings.read("cache")
        for knob in ("mode", "level"):
            settings.read(knob)
        for key in LIMITS.keys():
            settings.read("limits." + key)
        for color in COLORS:
            print(color)
        for computed in load():
            settings.read(computed)
        loaded.fetch("cache")
        plain.value("cache")
    """

SERVICE = """\
    import os

    SERVICE_TABLE = {"host": "localhost", "port": 80}
    IGNORED_TABLE = {"alpha": 1, "beta": 2}


    def env_setting(key):
        return os.getenv("SVC_" + key.upper())


    def dump():
        def walk(table, prefix=""):
            for k in table:
                env_setting(prefix + k)

        walk(SERVICE_TABLE)


    for flag in ["trace", "quiet"]:
        env_setting(flag)

    for entry in IGNORED_TABLE:
        print(entry)
    """


def test_dict_keys_loops_and_locals_give_the_helper_names_and_nothing_else(tmp_path: Path) -> None:
    root = _write(tmp_path, {
        "src/app/__init__.py": "",
        "src/app/settings.py": SETTINGS,
        "src/app/cli.py": CLI,
        "src/app/service.py": SERVICE,
    })
    found = _names(_run(root))
    cache = {"src/app/cli.py:8"}
    assert {name: where for name, where in found.items() if "*" not in name} == {
        # the recursion walks DEFAULTS["cache"], nested tables flattened with the helper's own separator
        "APP_CACHE": cache,
        "APP_CACHE_DIR": cache,
        "APP_CACHE_SIZE": cache,
        "APP_CACHE_SIZE_SOFT": cache,
        "APP_CACHE_SIZE_HARD": cache,
        # a for loop over a literal tuple, over a dict literal's keys() (the helper replaces only ".")
        "APP_MODE": {"src/app/cli.py:10"},
        "APP_LEVEL": {"src/app/cli.py:10"},
        "APP_LIMITS_MAX_JOBS": {"src/app/cli.py:12"},
        "APP_LIMITS_TIMEOUT": {"src/app/cli.py:12"},
        # self.read(key) with key = "log.verbose" in the calling method
        "APP_LOG_VERBOSE": {"src/app/settings.py:29"},
        # the walk over data that is not a literal, and a helper that does not recurse: the name itself
        "LOADED_CACHE": {"src/app/cli.py:17"},
        "PLAIN_CACHE": {"src/app/cli.py:18"},
        # a nested function walking a dict literal (its prefix parameter at its default), a module-level loop
        "SVC_HOST": {"src/app/service.py:14"},
        "SVC_PORT": {"src/app/service.py:14"},
        "SVC_TRACE": {"src/app/service.py:20"},
        "SVC_QUIET": {"src/app/service.py:20"},
    }
    # never read: a key of DEFAULTS no call reaches (APP_DEBUG), keys of dicts that never reach a
    # helper (COLORS, IGNORED_TABLE), a computed loop, a local bound twice, children of non-literal data
    # or of a helper that does not recurse
    for name in ("APP_DEBUG", "APP_RED", "APP_BLUE", "SVC_ALPHA", "SVC_BETA", "APP_LOG_FIRST", "APP_LOG_SECOND",
                 "LOADED_CACHE_DIR", "PLAIN_CACHE_DIR"):
        assert name not in found
