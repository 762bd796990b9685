"""Run one probe callable in this (fresh) process and print its observation as JSON on stdout:
``python -m vtgate.run.child module:function --args JSON``. Anything the probe itself prints
(Python or C level) goes to stderr, so stdout carries exactly one JSON document."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys

from vtgate.suite.observations import observation_problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vtgate.run.child")
    parser.add_argument("probe", help="module:function")
    parser.add_argument("--args", default="{}", help="JSON object of keyword arguments")
    options = parser.parse_args(argv)
    sys.stdout.flush()
    real_stdout = os.dup(1)
    os.dup2(2, 1)  # the probe's own prints go to stderr
    module_name, _, function_name = options.probe.partition(":")
    module = importlib.import_module(module_name)
    function = getattr(module, function_name)
    observation = function(**json.loads(options.args))
    problems = observation_problems(observation) if isinstance(observation, dict) else []
    if problems:  # a non-dict is reported by the probe layer ("printed JSON list, not an object")
        for problem in problems:
            print(f"probe {options.probe}: {problem}", file=sys.stderr)
        return 3
    text = json.dumps(observation, allow_nan=False)
    sys.stdout.flush()
    with os.fdopen(real_stdout, "w", encoding="utf-8") as out:
        out.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
