# Excerpt from https://github.com/python-poetry/poetry at commit f46702336862f30050d5c641d5ed6f7568ded793; license: MIT. Source src/poetry/console/commands/init.py lines 1,1 33,33 86,94 119,119 150,156. Small excerpt for scanner testing; unmodified except for elision markers.
from __future__ import annotations
# ...
class InitCommand(Command):
    # ...
    def _init_pyproject(
        self,
        project_path: Path,
        allow_interactive: bool = True,
        layout_name: str = "standard",
        readme_format: str = "md",
        allow_layout_creation_on_empty: bool = False,
    ) -> int:
        from poetry.core.vcs.git import GitConfig
        # ...
        vcs_config = GitConfig()
# ...

        author = self.option("author")
        if not author and vcs_config.get("user.name"):
            author = vcs_config["user.name"]
            author_email = vcs_config.get("user.email")
            if author_email:
                author += f" <{author_email}>"
