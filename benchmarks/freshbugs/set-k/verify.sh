#!/usr/bin/env bash
# For each NN: run NN_witness.py on the clean worktree, then with NN.patch applied; compare last lines.
WT=${WT:-/tmp/setk-wt}
K=$(cd "$(dirname "$0")" && pwd)
PY=${PY:-/work/main/.venv/bin/python}
export PYTHONPATH=$WT/engine:$K VT_CACHE_DIR=/tmp/freshbugs-k-cache PYTHONDONTWRITEBYTECODE=1
cd "$K" || exit 1
git -C "$WT" checkout -q -- engine
for n in ${@:-01 02 03 04 05 06 07 08 09 10 11 12 13 14 15}; do
  clean=$("$PY" "$K/${n}_witness.py" 2>&1 | tail -n 1)
  if ! git -C "$WT" apply "$K/$n.patch"; then echo "$n PATCH DOES NOT APPLY"; continue; fi
  patched=$("$PY" "$K/${n}_witness.py" 2>&1 | tail -n 1)
  git -C "$WT" checkout -q -- engine
  if [ "$clean" != "$patched" ]; then
    echo "$n differs | clean: $clean | patched: $patched"
  else
    echo "$n SAME | $clean"
  fi
done
if [ -z "$(git -C "$WT" status --porcelain -- engine)" ]; then echo "worktree engine clean"; else echo "worktree engine DIRTY"; fi
