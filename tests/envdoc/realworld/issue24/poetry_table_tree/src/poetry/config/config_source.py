# Excerpt from https://github.com/python-poetry/poetry at commit f46702336862f30050d5c641d5ed6f7568ded793; license: MIT. Source src/poetry/config/config_source.py lines 1,1 23,35. Small excerpt for scanner testing; unmodified except for elision markers.
from __future__ import annotations
# ...
def split_key(key: str | Sequence[str]) -> list[str]:
    """Split a config key into its component parts.

    If the key is a string, split on periods.

    If the key contains segments with periods
    (e.g. repository names like "my.repo"),
    this should be handled before calling this function
    so that a list or tuple of the segments is passed.
    """
    if isinstance(key, str):
        return key.split(".")
    return list(key)
