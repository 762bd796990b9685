# ruff: noqa  -- a fixture modelled on another project's style, kept as that project writes it
# Modelled on the helpers of a distributed-training library (written for this fixture, not copied).
import os


def str_to_bool(value):
    value = value.lower()
    if value in ("y", "yes", "t", "true", "on", "1"):
        return 1
    if value in ("n", "no", "f", "false", "off", "0"):
        return 0
    raise ValueError(f"invalid truth value {value}")


def get_int_from_env(env_keys, default):
    """The first non-negative value among the env vars named in ``env_keys``."""
    for key in env_keys:
        value = int(os.environ.get(key, -1))
        if value >= 0:
            return value
    return default


def parse_flag_from_env(key, default=False):
    value = os.environ.get(key, str(default))
    return str_to_bool(value) == 1


def parse_choice_from_env(key, default="no"):
    return os.environ.get(key, str(default))


def patch_environment(**kwargs):
    for key, value in kwargs.items():
        if key.upper() in os.environ:
            del os.environ[key.upper()]
        os.environ[key.upper()] = str(value)
