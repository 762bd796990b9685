# Excerpt from https://github.com/python-poetry/poetry at commit f46702336862f30050d5c641d5ed6f7568ded793; license: MIT. Source src/poetry/config/config.py lines 151,189 321,349 362,366. Small excerpt for scanner testing; unmodified except for elision markers.
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
# ... (src/poetry/config/config.py)
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
# ... (src/poetry/config/config.py)

        if self._use_environment and isinstance(value, dict):
            # this is a configuration table, it is likely that we missed env vars
            # in order to capture them recurse, eg: virtualenvs.options
            return {k: self.get([*keys, k]) for k in value}
