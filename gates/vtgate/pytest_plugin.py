"""pytest plug-in: ``pytest --vtgate`` adds the project's gate suite to the test run, one test item per
gate (``vtgate.toml::decode-bench-anchor``). All selected gates are checked together through the probe
layer on the first gate item that runs (shared probe runs, as ``vtgate check``); an item passes when its
gate is green or deliberately red and fails with the gate's verdict otherwise. Registered through the
``pytest11`` entry point and inert without ``--vtgate``: nothing of vtgate is imported until then."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

PASSING = ("green", "deliberate-red")
_REPORT = pytest.StashKey[dict[str, Any]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("vtgate", "vtgate gate suite")
    group.addoption("--vtgate", action="store_true", default=False,
                    help="Also run the vtgate gate suite: one test per gate.")
    group.addoption("--vtgate-suite", default=None, metavar="FILE",
                    help="The suite (default: vtgate.toml or [tool.vtgate] found from the rootdir up).")
    group.addoption("--vtgate-root", default=None, metavar="DIR",
                    help="The tree whose code is under test (default: the suite's project).")


class GateFailed(Exception):
    """A gate that is red, unexpectedly green or could not be judged: its verdict, as vtgate says it."""


class VtgateSuite(pytest.File):
    """The suite file as a pytest collector of its gates."""

    def collect(self) -> list[pytest.Item]:
        suite = self.config.stash[_REPORT]["suite"]
        return [GateItem.from_parent(self, name=spec.name, kind=spec.kind) for spec in suite.gates]


class GateItem(pytest.Item):
    def __init__(self, *, kind: str, **rest: Any) -> None:
        super().__init__(**rest)
        self.add_marker(pytest.mark.vtgate)
        self.extra_keyword_matches.add(kind)

    def runtest(self) -> None:
        state = self.config.stash[_REPORT]
        if "report" not in state:
            from vtgate.run.check import run_check

            names = [item.name for item in self.session.items if isinstance(item, GateItem)]
            state["report"] = run_check(state["suite"], root=self.config.getoption("vtgate_root"), select=names)
        result = state["report"].gate(self.name)
        if result.status not in PASSING:
            raise GateFailed(f"{result.status}: {result.summary}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, GateFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"vtgate gate {self.name}"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "vtgate: a gate of the vtgate suite (pytest --vtgate)")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Add the gates before pytest's own -k / -m deselection sees the items."""
    if not config.getoption("vtgate"):
        return
    from vtgate.errors import SuiteError
    from vtgate.suite.load import load_suite

    given = config.getoption("vtgate_suite")
    try:
        suite = load_suite(given) if given else load_suite(start=config.rootpath)
    except SuiteError as error:
        raise pytest.UsageError(f"--vtgate: {error}") from None
    config.stash[_REPORT] = {"suite": suite}
    collector = VtgateSuite.from_parent(session, path=suite.path)
    items.extend(collector.collect())
