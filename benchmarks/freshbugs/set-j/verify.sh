#!/bin/bash
# For each bug NN: run NN_witness.py on the clean worktree and with NN.patch applied; compare last lines.
WT=${WT:-/tmp/setj-wt}
HERE=/tmp/set-j
PY=${PY:-/work/main/.venv/bin/python}
export PYTHONPATH=$WT/engine:$HERE PYTHONDONTWRITEBYTECODE=1 VT_CACHE_DIR=/tmp/freshbugs-j-cache
cd "$HERE" || exit 1
git -C "$WT" checkout -q -- engine
for NN in ${@:-01 02 03 04 05 06 07 08 09 10 11 12 13 14 15}; do
  clean=$($PY "$HERE/${NN}_witness.py" 2>&1 | tail -n 1)
  if ! git -C "$WT" apply "$HERE/$NN.patch"; then echo "$NN PATCH DOES NOT APPLY"; continue; fi
  patched=$($PY "$HERE/${NN}_witness.py" 2>&1 | tail -n 1)
  git -C "$WT" checkout -q -- engine
  if [ "$clean" != "$patched" ]; then
    echo "$NN differs | clean: $clean | patched: $patched"
  else
    echo "$NN SAME | $clean"
  fi
done
if [ -z "$(git -C "$WT" status --porcelain -- engine)" ]; then echo "worktree engine clean: yes"; else echo "worktree engine clean: NO"; fi
