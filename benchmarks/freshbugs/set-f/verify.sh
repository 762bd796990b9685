#!/usr/bin/env bash
# For each bug NN: run NN_witness.py on the clean tree and with NN.patch applied (engine/ restored
# after each), and print "NN differs" or "NN SAME" with both last lines.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(git -C "$HERE" rev-parse --show-toplevel)"
PY="${PY:-/work/main/.venv/bin/python}"
export PYTHONPATH="$REPO/engine"
export VT_CACHE_DIR="${VT_CACHE_DIR:-/tmp/freshbugs-f-cache}"
if ! git -C "$REPO" diff --quiet -- engine; then
    echo "engine/ has local changes: refusing to run" >&2
    exit 2
fi
run() { (cd "$HERE" && timeout 60 "$PY" "$HERE/$1_witness.py" 2>&1 | tail -n 1); }
for patch in "$HERE"/[0-9][0-9].patch; do
    nn="$(basename "$patch" .patch)"
    clean="$(run "$nn")"
    if ! git -C "$REPO" apply "$patch"; then
        echo "$nn SAME (patch does not apply)"
        continue
    fi
    buggy="$(run "$nn")"
    git -C "$REPO" checkout -- engine
    if [ "$clean" != "$buggy" ]; then
        echo "$nn differs | clean: $clean | patched: $buggy"
    else
        echo "$nn SAME | clean: $clean | patched: $buggy"
    fi
done
git -C "$REPO" diff --quiet -- engine && echo "engine/ clean"
