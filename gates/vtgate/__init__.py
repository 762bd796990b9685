"""vtgate: declarative numerical gates (golden tokens, anchors, bands, bit-identity, invariance,
counters, env-doc) over any engine reached through probes.

Where things are:

- ``probe``: helpers for writing a probe of your own engine (the one module users import);
- ``suite/``: reading a gate suite, its records, golden files, the observation shape, knob coverage;
- ``kinds/``: one module per gate kind (compare an observation with a pin, say why);
- ``run/``: the probe layer: planning, probe processes, fork servers, persistent workers, executors
  (local, Dask), the process-tree killer, and the check as an API (``vtgate.run.check.run_check``);
- ``perf/``: what the perf kind stands on: timed legs, statistics, warm leg workers, quiet-host preflight;
- ``mutate/``: ``vtgate mutate``: declared mutations, pin controls, generated code mutants;
- ``envdoc/``: ``vtgate envdoc``: env reads in source against the doc page;
- ``htmlsite/``: ``vtgate report --html``: a static site from the JSON reports (pages, SVG plots, history);
- ``cli/``: the ``vtgate`` command line: app, commands, exit codes, reporters, progress;
- ``errors``, ``exitcodes``, ``output``, ``treehash``, ``pytest_plugin``: small shared pieces
  (suite/gate errors, exit codes, where and how output is printed, the source tree hash, ``pytest --vtgate``).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("vtgate")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+source"
