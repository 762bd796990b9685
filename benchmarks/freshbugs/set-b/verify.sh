#!/usr/bin/env bash
# For each bug NN: run its witness on the clean scratch worktree, apply NN.patch, run again, revert.
set -u
WT=/work/wt-bugs-b
DIR=/work/freshbugs-b
cd "$WT"
git checkout -q -- .
for patch in "$DIR"/[0-9][0-9].patch; do
    nn=$(basename "$patch" .patch)
    [ $# -gt 0 ] && [[ " $* " != *" $nn "* ]] && continue
    clean=$(timeout 120 .venv/bin/python "$DIR/${nn}_witness.py" 2>&1)
    if ! git apply "$patch"; then echo "$nn APPLY-FAILED"; continue; fi
    bugged=$(timeout 120 .venv/bin/python "$DIR/${nn}_witness.py" 2>&1)
    git checkout -q -- .
    if [ "$clean" != "$bugged" ]; then verdict=differs; else verdict=SAME; fi
    echo "$nn $verdict"
    echo "   clean : $(echo "$clean" | tail -n 3 | tr '\n' '|' | cut -c1-300)"
    echo "   bugged: $(echo "$bugged" | tail -n 3 | tr '\n' '|' | cut -c1-300)"
done
git status --short
