"""vtgate: declarative numerical gates (golden tokens, anchors, bands, bit-identity, invariance,
counters, env-doc) over any engine reached through probes."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("vtgate")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+source"
