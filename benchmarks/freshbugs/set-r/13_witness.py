"""ENVIRONMENT.md: CI set to anything but 0/false/no means a CI run (no live progress). What
running_in_ci() says for each value of CI."""
import os

from vtengine.knobs import running_in_ci

verdicts = {}
for value in ("", "0", "false", "no", "NO", "true", "1", "github"):
    os.environ["CI"] = value
    verdicts[value] = running_in_ci()
os.environ.pop("CI")
print("CI unset:", running_in_ci())
print("running_in_ci by CI value:", verdicts)
