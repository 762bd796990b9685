# ruff: noqa  -- a fixture modelled on another project's style, kept as that project writes it
# Modelled on a serving engine's env registry (written for this fixture, not copied): every knob is
# a key of one module-level dict whose value is a lambda that reads it; the docs include this file.
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    SERVE_HOST_IP: str = ""
    SERVE_PORT: int | None = None


def get_default_cache_root() -> str:
    return os.getenv("XDG_CACHE_HOME", os.path.join(os.path.expanduser("~"), ".cache"))


def maybe_convert_int(value: str | None) -> int | None:
    return None if value is None else int(value)


# begin-env-vars-definition

environment_variables: dict[str, Callable[[], Any]] = {
    # used in distributed environment to determine the ip address of the current node
    "SERVE_HOST_IP": lambda: os.getenv("SERVE_HOST_IP", ""),
    # used in distributed environment to manually set the communication port
    "SERVE_PORT": lambda: maybe_convert_int(os.getenv("SERVE_PORT", None)),
    # if true, will load models from a mirror hub
    "SERVE_USE_MIRROR": lambda: os.environ.get("SERVE_USE_MIRROR", "False").lower() == "true",
    # root directory for cache files
    "SERVE_CACHE_ROOT": lambda: os.path.expanduser(os.getenv("SERVE_CACHE_ROOT", os.path.join(get_default_cache_root(), "serve"))),
    # number of tokens per KV block
    "SERVE_BLOCK_SIZE": lambda: int(os.getenv("SERVE_BLOCK_SIZE", "16")),
    # attention backend; unset lets the engine choose
    "SERVE_ATTENTION_BACKEND": lambda: os.getenv("SERVE_ATTENTION_BACKEND"),
    # whether to log every request
    "SERVE_LOG_REQUESTS": lambda: bool(int(os.getenv("SERVE_LOG_REQUESTS", "0"))),
}

# end-env-vars-definition


def __getattr__(name: str):
    if name in environment_variables:
        return environment_variables[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return list(environment_variables.keys())
