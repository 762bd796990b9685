# Excerpt from https://github.com/python-poetry/poetry at commit f46702336862f30050d5c641d5ed6f7568ded793; license: MIT. Source src/poetry/repositories/http_repository.py lines 1,1 28,28 57,86. Small excerpt for scanner testing; unmodified except for elision markers.
from __future__ import annotations
# ...
from poetry.config.config import Config
# ...

class HTTPRepository(CachedRepository):
    def __init__(
        self,
        name: str,
        url: str,
        *,
        config: Config | None = None,
        disable_cache: bool = False,
        pool_size: int = requests.adapters.DEFAULT_POOLSIZE,
    ) -> None:
        super().__init__(name, disable_cache=disable_cache, config=config)
        self._url = url
        if config is None:
            config = Config.create()
        self._authenticator = Authenticator(
            config=config,
            cache_id=name,
            disable_cache=disable_cache,
            pool_size=pool_size,
        )
        self._authenticator.add_repository(name, url)
        self.get_page = functools.cache(self._get_page)
        self._find_packages = functools.cache(self._find_packages_uncached)  # type: ignore[method-assign]

        self._lazy_wheel = config.get("solver.lazy-wheel", True)
        self._max_retries = config.get("requests.max-retries", 0)

        self._min_release_age = config.get("solver.min-release-age", 0)
        self._min_release_age_cutoff: datetime | None = None
