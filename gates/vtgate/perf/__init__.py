"""Everything the ``perf`` gate kind (``vtgate.kinds.perf``: the pin and the verdict) stands on:
``legs`` times the interleaved candidate and reference legs (the probe ``vtgate.perf.legs:measure``);
``worker`` is a warm leg process (``python -m vtgate.perf.worker``); ``stats`` turns legs into a
ratio with a bootstrap interval and sequential looks; ``hostcheck`` is the quiet-host preflight."""
