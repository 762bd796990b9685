# Excerpt from https://github.com/python-poetry/poetry at commit f46702336862f30050d5c641d5ed6f7568ded793; license: MIT. Source src/poetry/config/config.py lines 247,278. Small excerpt for scanner testing; unmodified except for elision markers.
    @staticmethod
    def _get_environment_repositories() -> dict[str, dict[str, str]]:
        repositories = {}
        pattern = re.compile(r"POETRY_REPOSITORIES_(?P<name>[A-Z_]+)_URL")

        for env_key in os.environ:
            match = pattern.match(env_key)
            if match:
                repositories[match.group("name").lower().replace("_", "-")] = {
                    "url": os.environ[env_key]
                }

        return repositories

    @staticmethod
    def _get_environment_build_config_settings() -> Mapping[
        NormalizedName, Mapping[str, str | Sequence[str]]
    ]:
        build_config_settings = {}
        pattern = re.compile(r"POETRY_INSTALLER_BUILD_CONFIG_SETTINGS_(?P<name>[^.]+)")

        for env_key in os.environ:
            if match := pattern.match(env_key):
                if not build_config_setting_validator(os.environ[env_key]):
                    logger.debug(
                        "Invalid value set for environment variable %s", env_key
                    )
                    continue
                build_config_settings[canonicalize_name(match.group("name"))] = (
                    build_config_setting_normalizer(os.environ[env_key])
                )

