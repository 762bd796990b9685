#!/bin/bash
# For each NN: run NN_witness.py on the clean worktree and with NN.patch applied, compare the last
# printed stdout lines, restore the tree. Usage: verify.sh [NN ...]
# Witnesses run one at a time, with the worktree as the current directory and PYTHONPATH unset, so
# the venv's editable install imports the worktree's engine/.
WT=${WT:-/tmp/setad-wt}
OUT=$(cd "$(dirname "$0")" && pwd)
PY=${PY:-/tmp/setad-venv/bin/python}
unset PYTHONPATH CI
export VT_CACHE_DIR=${VT_CACHE_DIR:-/tmp/freshbugs-ad-cache} PYTHONDONTWRITEBYTECODE=1
cd "$WT" || exit 3
where=$("$PY" -c 'import vtengine; print(vtengine.__file__)')
case "$where" in "$WT"/*) ;; *) echo "vtengine is imported from $where, not from $WT"; exit 3;; esac
if [ -n "$(git -C "$WT" status --porcelain -- engine)" ]; then echo "worktree engine is not clean"; exit 3; fi
ids=("$@"); [ ${#ids[@]} -eq 0 ] && ids=($(ls "$OUT" | sed -n 's/^\([0-9][0-9]\)\.patch$/\1/p'))
ndiff=0
for nn in "${ids[@]}"; do
  clean=$("$PY" "$OUT/${nn}_witness.py" 2>/dev/null | tail -n 1)
  if ! git -C "$WT" apply "$OUT/$nn.patch"; then echo "$nn PATCH DOES NOT APPLY"; continue; fi
  patched=$("$PY" "$OUT/${nn}_witness.py" 2>/dev/null | tail -n 1)
  git -C "$WT" checkout -q -- engine
  if [ "$clean" != "$patched" ]; then
    echo "$nn differ | clean: $clean | patched: $patched"; ndiff=$((ndiff + 1))
  else
    echo "$nn SAME | $clean"
  fi
done
rm -rf /tmp/setad-tmp*
echo "$ndiff/${#ids[@]} differ"
if [ -z "$(git -C "$WT" status --porcelain)" ]; then echo "worktree clean"; else echo "WORKTREE NOT CLEAN"; git -C "$WT" status --porcelain; fi
