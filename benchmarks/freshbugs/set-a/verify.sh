#!/usr/bin/env bash
# For each bug NN: run NN_witness.py on the clean scratch worktree, apply NN.patch, run it again,
# restore the tree, and report whether the two outputs differ.
# usage: verify.sh [NN ...]   (default: all NN.patch here)
set -u
HERE=/work/freshbugs
WT=${WT:-/work/wt-bugs}
OUT=${OUT:-/tmp/freshbugs-verify}
mkdir -p "$OUT"
cd "$WT" || exit 1
if ! git diff --quiet; then echo "worktree $WT is not clean"; exit 1; fi
list=("$@")
if [ ${#list[@]} -eq 0 ]; then
  list=($(cd "$HERE" && ls [0-9][0-9].patch | sed 's/\.patch$//'))
fi
differ=0; same=0
for nn in "${list[@]}"; do
  .venv/bin/python "$HERE/${nn}_witness.py" > "$OUT/$nn.orig" 2>&1
  if ! git apply "$HERE/$nn.patch"; then echo "$nn PATCH-FAILED"; continue; fi
  .venv/bin/python "$HERE/${nn}_witness.py" > "$OUT/$nn.bug" 2>&1
  git checkout -q -- .
  if cmp -s "$OUT/$nn.orig" "$OUT/$nn.bug"; then
    echo "$nn SAME"; same=$((same+1))
  else
    echo "$nn differs"; differ=$((differ+1))
    diff "$OUT/$nn.orig" "$OUT/$nn.bug" | sed 's/^/    /' | cut -c1-220 | head -8
  fi
done
echo "summary: $differ differ, $same same, of ${#list[@]}"
git diff --quiet && echo "worktree clean"
