#!/usr/bin/env bash
# Runs each witness on the clean tree and with its patch applied; prints "NN differs" or "NN SAME".
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"; ROOT="$(git -C "$HERE" rev-parse --show-toplevel)"
PY=${PY:-/work/main/.venv/bin/python}
export PYTHONPATH="$ROOT/engine" VT_CACHE_DIR=${VT_CACHE_DIR:-/tmp/freshbugs-e-cache}
git -C "$ROOT" checkout -- engine
for p in "$HERE"/[0-9][0-9].patch; do
  nn=$(basename "$p" .patch)
  clean=$(timeout 60 "$PY" "$HERE/${nn}_witness.py" 2>&1 | tail -1)
  git -C "$ROOT" apply "$p" || { echo "$nn PATCH-FAILED"; continue; }
  bug=$(timeout 60 "$PY" "$HERE/${nn}_witness.py" 2>&1 | tail -1)
  git -C "$ROOT" checkout -- engine
  if [ "$clean" != "$bug" ]; then echo "$nn differs"; else echo "$nn SAME"; fi
  echo "  clean:   $clean"; echo "  patched: $bug"
done
git -C "$ROOT" checkout -- engine
