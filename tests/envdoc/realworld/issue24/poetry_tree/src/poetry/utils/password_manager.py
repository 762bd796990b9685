# Excerpt from https://github.com/python-poetry/poetry at commit f46702336862f30050d5c641d5ed6f7568ded793; license: MIT. Source src/poetry/utils/password_manager.py lines 1,1 10,10 191,197 248,251. Small excerpt for scanner testing; unmodified except for elision markers.
from __future__ import annotations
# ...
from poetry.config.config import Config
# ...
class PasswordManager:
    def __init__(self, config: Config) -> None:
        self._config = config

    @atomic_cached_property
    def use_keyring(self) -> bool:
        return self._config.get("keyring.enabled") and PoetryKeyring.is_available()
    # ...
    def get_http_auth(self, repo_name: str) -> HTTPAuthCredential:
        username = self._config.get(["http-basic", repo_name, "username"])
        password = self._config.get(["http-basic", repo_name, "password"])

