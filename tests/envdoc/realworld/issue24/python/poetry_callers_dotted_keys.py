# Excerpt from https://github.com/python-poetry/poetry at commit f46702336862f30050d5c641d5ed6f7568ded793; license: MIT. Source src/poetry/utils/password_manager.py lines 248,251; src/poetry/repositories/http_repository.py lines 82,86; src/poetry/utils/env/env_manager.py lines 226,229. Small excerpt for scanner testing; unmodified except for elision markers.
    def get_http_auth(self, repo_name: str) -> HTTPAuthCredential:
        username = self._config.get(["http-basic", repo_name, "username"])
        password = self._config.get(["http-basic", repo_name, "password"])

# ... (src/poetry/repositories/http_repository.py)
        self._lazy_wheel = config.get("solver.lazy-wheel", True)
        self._max_retries = config.get("requests.max-retries", 0)

        self._min_release_age = config.get("solver.min-release-age", 0)
        self._min_release_age_cutoff: datetime | None = None
# ... (src/poetry/utils/env/env_manager.py)
                return VirtualEnv(venv)

            create_venv = self._poetry.config.get("virtualenvs.create", True)

