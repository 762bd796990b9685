#!/bin/bash
# Runs each witness on the clean scratch tree and with its patch applied; prints "NN differs" or "NN SAME".
WT=/work/wt-bugs-d
PY=$WT/.venv/bin/python
D=/work/freshbugs-d
export VT_CACHE_DIR=/tmp/freshbugs-d-cache CI=1
cd /tmp
for p in $D/[0-9][0-9].patch; do
  nn=$(basename $p .patch)
  [ -n "$ONLY" ] && [[ " $ONLY " != *" $nn "* ]] && continue
  git -C $WT checkout -q -- .
  a=$(timeout 60 $PY $D/${nn}_witness.py 2>&1 | tail -3)
  git -C $WT apply $p || { echo "$nn APPLY-FAILED"; continue; }
  b=$(timeout 60 $PY $D/${nn}_witness.py 2>&1 | tail -3)
  git -C $WT checkout -q -- .
  if [ "$a" != "$b" ]; then echo "$nn differs"; else echo "$nn SAME"; fi
  echo "   clean: $a" | head -3
  echo "   bug:   $b" | head -3
done
git -C $WT status --short
