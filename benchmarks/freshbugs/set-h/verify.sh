#!/usr/bin/env bash
# For each bug NN: the witness's last line on the clean engine, then with NN.patch applied.
set -u
WT=/tmp/seth-wt
PY=/work/main/.venv/bin/python
export PYTHONPATH=/tmp/seth-wt/engine:/tmp/set-h
export VT_CACHE_DIR=/tmp/freshbugs-h-cache
export PYTHONDONTWRITEBYTECODE=1
cd /tmp/set-h
last() { "$PY" "$1" 2>/dev/null | tail -n 1; }
ids=("$@")
[ ${#ids[@]} -eq 0 ] && ids=(01 02 03 04 05 06 07 08 09 10 11 12 13 14 15)
for nn in "${ids[@]}"; do
  git -C "$WT" checkout -q -- engine
  clean=$(last "${nn}_witness.py")
  git -C "$WT" apply "/tmp/set-h/${nn}.patch" || { echo "$nn PATCH DOES NOT APPLY"; continue; }
  patched=$(last "${nn}_witness.py")
  git -C "$WT" checkout -q -- engine
  if [ "$clean" != "$patched" ]; then
    echo "$nn differs | clean: $clean | patched: $patched"
  else
    echo "$nn SAME | $clean"
  fi
done
status=$(git -C "$WT" status --short -- engine)
if [ -z "$status" ]; then echo "engine clean: yes"; else echo "engine clean: NO"; echo "$status"; fi
