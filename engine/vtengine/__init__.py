"""vtengine: a small Llama-architecture inference engine with a bit-exact default kernel arm and
opt-in fast arms behind VT_* knobs; the embedded default subject of vtgate and vtbisect."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("vtgate")  # one distribution ships all three packages
except PackageNotFoundError:
    __version__ = "0.0.0+source"
