# Excerpt from https://github.com/python-poetry/poetry at commit f46702336862f30050d5c641d5ed6f7568ded793; license: MIT. Source src/poetry/utils/env/env_manager.py lines 1,1 14,14 41,41 44,44 86,86 95,96 366,371 492,498. Small excerpt for scanner testing; unmodified except for elision markers.
from __future__ import annotations
# ...
from typing import TYPE_CHECKING
# ...
if TYPE_CHECKING:
    # ...
    from poetry.poetry import Poetry
# ...
class EnvManager:
    # ...
    def __init__(self, poetry: Poetry, io: None | IO = None) -> None:
        self._poetry = poetry
    # ...
    def create_venv(
        self,
        name: str | None = None,
        python: Python | None = None,
        force: bool = False,
    ) -> Env:
        # ...
        if create_venv:
            self.build_venv(
                venv,
                executable=python.executable,
                flags=self._poetry.config.get("virtualenvs.options"),
                prompt=venv_prompt,
            )
