"""Env names built inside a helper in one module and resolved at its call sites in others (issue 24):
on license-headed excerpts of poetry @ f467023 under tests/envdoc/realworld/issue24/poetry_tree/
(``Config.get`` builds ``"POETRY_" + "_".join(k.upper().replace("-", "_") for k in split_key(name))``,
``split_key`` lives in another module, callers hold a ``Config`` through annotations, properties and
``Config.create()``), and on planted trees for each rule and each near-miss that must read nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

from vtgate.envdoc import EnvdocConfig, EnvdocReport, run_envdoc

HERE = Path(__file__).parent / "realworld" / "issue24" / "poetry_tree"
NONE_DOC = "| name | effect |\n|---|---|\n| ZZ_NONE | none |\n"


def _run(root: Path) -> EnvdocReport:
    (root / "ENV.md").write_text(NONE_DOC)
    return run_envdoc(root, EnvdocConfig.load(root, {"sources": ["src"], "doc": "ENV.md", "prefix": ""}))


def _names(report: EnvdocReport) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for read in report.reads:
        label = read.name or f"{read.prefix}*{read.suffix}"
        found.setdefault(label, set()).add(f"{read.file}:{read.line}")
    return found


def _tree(tmp_path: Path) -> Path:
    shutil.copytree(HERE, tmp_path / "t")
    return tmp_path / "t"


def test_poetry_config_get_names_are_read_at_every_caller_in_other_modules(tmp_path: Path) -> None:
    found = _names(_run(_tree(tmp_path)))
    assert found == {
        "POETRY_*": {"src/poetry/config/config.py:36"},  # the helper's own read, dynamic
        # Config.create().get(...) in a staticmethod (a classmethod annotated -> Config)
        "POETRY_SYSTEM_GIT_CLIENT": {"src/poetry/vcs/git/backend.py:10"},
        "POETRY_CACHE_DIR": {"src/poetry/vcs/git/backend.py:17"},
        # self._config = config, with `config: Config` in __init__
        "POETRY_KEYRING_ENABLED": {"src/poetry/utils/password_manager.py:12"},
        # a list with an unknown element: a family, never a name
        "POETRY_HTTP_BASIC_*_USERNAME": {"src/poetry/utils/password_manager.py:15"},
        "POETRY_HTTP_BASIC_*_PASSWORD": {"src/poetry/utils/password_manager.py:16"},
        # a keyword parameter annotated `Config | None`
        "POETRY_SOLVER_LAZY_WHEEL": {"src/poetry/repositories/http_repository.py:31"},
        "POETRY_REQUESTS_MAX_RETRIES": {"src/poetry/repositories/http_repository.py:32"},
        "POETRY_SOLVER_MIN_RELEASE_AGE": {"src/poetry/repositories/http_repository.py:34"},
        # self._poetry (a Poetry, annotated under TYPE_CHECKING) .config (a property -> Config)
        "POETRY_VIRTUALENVS_IN_PROJECT": {"src/poetry/utils/env/env_manager.py:16"},
    }
    # vcs_config = GitConfig() (a class from outside the tree): vcs_config.get("user.name") reads nothing
    assert "POETRY_USER_NAME" not in found and "POETRY_USER_EMAIL" not in found


def test_calls_on_objects_of_unknown_class_are_counted_in_a_note_never_read(tmp_path: Path) -> None:
    report = _run(_tree(tmp_path))
    notes = [note for note in report.notes if "Config.get()" in note]
    assert len(notes) == 1
    assert "2 call(s) with a static argument" in notes[0] and "src/poetry/console/commands/init.py:22" in notes[0]


def test_near_misses_read_nothing_and_the_guard_of_the_read_is_evaluated(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    (root / "src/poetry/near.py").write_text(
        "from __future__ import annotations\n"
        "from poetry.config.config import Config\n"
        "KEY = 'virtualenvs.path'\n"
        "class Other:\n"
        "    def get(self, name: str) -> str:\n"
        "        return name\n"
        "def use(config: Config, other: Other, key: str, settings: dict) -> None:\n"
        "    other.get('virtualenvs.create')\n"          # 8: the same method name on another class
        "    Other().get('cache-dir')\n"                 # 9: ditto, constructed here
        "    settings.get('data-dir')\n"                 # 10: a dict
        "    config.get(key)\n"                          # 11: not static
        "    config.get(f'{key}')\n"                     # 12: wholly unknown f-string
        "    config.get('installer.build-config-settings')\n"  # 13: the else branch of the read is not taken
        "    config.get('has space')\n"                  # 14: not an env name
        "    config.get(KEY)\n"                          # 15: a module constant: read
        "    config.get(setting_name='keyring.enabled')\n"  # 16: by keyword: read
    )
    found = _names(_run(root))
    near = {name: {w for w in where if w.startswith("src/poetry/near.py")} for name, where in found.items()}
    near = {name: where for name, where in near.items() if where}
    assert near == {
        "POETRY_VIRTUALENVS_PATH": {"src/poetry/near.py:15"},
        "POETRY_KEYRING_ENABLED": {"src/poetry/near.py:16"},
    }


def test_a_subclass_receiver_and_a_plain_function_helper_imported_from_another_module(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "src/app").mkdir(parents=True)
    (root / "src/app/__init__.py").write_text("")
    (root / "src/app/knobs.py").write_text(
        "import os\n"
        "PREFIX = 'APP_'\n"
        "def flag(name, default=None):\n"
        "    return os.environ.get(PREFIX + name.upper().replace('.', '_'), default)\n"
        "class Settings:\n"
        "    def value(self, key):\n"
        "        return os.getenv(f'APP_{key.upper()}')\n"
    )
    (root / "src/app/use.py").write_text(
        "from app.knobs import flag, Settings\n"
        "from app import knobs\n"
        "class Local(Settings):\n"
        "    pass\n"
        "def flag_local(name):\n"
        "    return name\n"
        "def run(s: Local):\n"
        "    flag('log.level')\n"        # 8: imported function
        "    knobs.flag('threads')\n"    # 9: through the module
        "    s.value('trace')\n"         # 10: a subclass of the helper's class
        "    flag_local('nope')\n"       # 11: another function
        "def shadow():\n"
        "    def flag(name):\n"          # a local function shadowing the import
        "        return name\n"
        "    flag('shadowed')\n"         # 15: the local one
    )
    (root / "src/app/other.py").write_text(
        "def flag(name):\n"
        "    return name\n"
        "flag('same_name')\n"            # 3: a same-named function of another module
    )
    found = _names(_run(root))
    assert {name: where for name, where in found.items() if "*" not in name} == {
        "APP_LOG_LEVEL": {"src/app/use.py:8"},
        "APP_THREADS": {"src/app/use.py:9"},
        "APP_TRACE": {"src/app/use.py:10"},
    }
