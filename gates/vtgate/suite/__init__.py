"""What a check is about: the suite and its pins. ``load`` finds, reads and validates a gate suite
(TOML) into the frozen ``records`` (``Suite``, ``GateSpec``, ``ProbeRequest``, ``Verdict``);
``goldens`` reads and writes golden files with provenance and bless history; ``observations`` is the
shape a probe must return; ``knobcoverage`` finds documented knob values no gate sets (``vtgate knobs``)."""
