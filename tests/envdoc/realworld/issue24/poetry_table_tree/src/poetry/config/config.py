# Excerpt from https://github.com/python-poetry/poetry at commit f46702336862f30050d5c641d5ed6f7568ded793; license: MIT. Source src/poetry/config/config.py lines 1,1 5,5 9,9 19,19 151,195 319,366. Small excerpt for scanner testing; unmodified except for elision markers.
from __future__ import annotations
# ...
import logging
# ...
from copy import deepcopy
# ...
from poetry.config.config_source import split_key
# ...
class Config:
    default_config: ClassVar[dict[str, Any]] = {
        "cache-dir": str(DEFAULT_CACHE_DIR),
        "data-dir": str(data_dir()),
        "virtualenvs": {
            "create": True,
            "in-project": None,
            "path": os.path.join("{cache-dir}", "virtualenvs"),
            "options": {
                "always-copy": False,
                "system-site-packages": False,
                "no-pip": False,
            },
            "use-poetry-python": False,
            "prompt": "{project_name}-py{python_version}",
        },
        "requests": {
            "max-retries": 0,
        },
        "installer": {
            "re-resolve": False,
            "parallel": True,
            "max-workers": None,
            "no-binary": None,
            "only-binary": None,
            "build-config-settings": {},
        },
        "python": {"installation-dir": os.path.join("{data-dir}", "python")},
        "solver": {
            "lazy-wheel": True,
            "min-release-age": 0,
            "min-release-age-exclude": None,
            "min-release-age-exclude-source": None,
        },
        "system-git-client": False,
        "keyring": {
            "enabled": True,
        },
    }

    def __init__(self, use_environment: bool = True) -> None:
        self._config = deepcopy(self.default_config)
        self._use_environment = use_environment
        self._config_source: ConfigSource = DictConfigSource()
        self._auth_config_source: ConfigSource = DictConfigSource()
    # ...
    def get(self, setting_name: str | Sequence[str], default: Any = None) -> Any:
        """
        Retrieve a setting value.

        The setting_name can be a dotted string (e.g. "virtualenvs.create")
        or a list of key segments (e.g. ["http-basic", "my.repo", "username"])
        when any segment may contain periods.
        """
        keys = split_key(setting_name)
        build_config_settings: Mapping[
            NormalizedName, Mapping[str, str | Sequence[str]]
        ] = {}

        # Looking in the environment if the setting
        # is set via a POETRY_* environment variable
        if self._use_environment:
            if keys == ["repositories"]:
                # repositories setting is special for now
                repositories = self._get_environment_repositories()
                if repositories:
                    return repositories

            if keys[:2] == ["installer", "build-config-settings"]:
                build_config_settings = self._get_environment_build_config_settings()
            else:
                env = "POETRY_" + "_".join(k.upper().replace("-", "_") for k in keys)
                env_value = os.getenv(env)
                if env_value is not None:
                    return self.process(self._get_normalizer(keys)(env_value))

        value = self._config

        # merge installer build config settings from the environment
        for package_name in build_config_settings:
            value["installer"]["build-config-settings"][package_name] = (
                build_config_settings[package_name]
            )

        for key in keys:
            if key not in value:
                return self.process(default)

            value = value[key]

        if self._use_environment and isinstance(value, dict):
            # this is a configuration table, it is likely that we missed env vars
            # in order to capture them recurse, eg: virtualenvs.options
            return {k: self.get([*keys, k]) for k in value}
