"""`vtengine bench --json -`: the stage profile's call counts are integers (a count of calls)."""
import json

from _w import cli

run = cli("bench", "--prompt-tokens", "4", "--tokens", "3", "--runs", "1", "--json", "-")
result = json.loads(run.stdout)
calls = [row["calls"] for row in result["profile"]]
print("exit", run.returncode, "rows", len(calls))
print("profile calls:", sorted(calls), "| all integers:", all(type(c) is int for c in calls))
