#!/usr/bin/env bash
# For each bug NN: run NN_witness.py on the clean worktree and with NN.patch applied; compare last lines.
set -u
WT=${WT:-/tmp/seti-wt}
SET=${SET:-/tmp/set-i}
PY=${PY:-/work/main/.venv/bin/python}
export PYTHONPATH=$WT/engine:$SET VT_CACHE_DIR=/tmp/freshbugs-i-cache PYTHONDONTWRITEBYTECODE=1
unset VT_DEQUANT_CACHE_MB VT_DEQUANT_CACHE_POLICY VT_ACT_DTYPE VT_KV_BLOCK_SIZE VT_CPU_THREADS \
      VT_CPU_PAGED_ATTN_SCALAR_FMA VT_CPU_PAGED_ATTN_BFDOT VT_CPU_GEMV_BF16_DOT VT_CPU_GEMV_BLAS VT_PROFILE
cd /tmp
ids=${*:-$(cd "$SET" && ls [0-9][0-9].patch | sed 's/.patch//')}
for nn in $ids; do
  git -C "$WT" checkout -q -- engine
  clean=$("$PY" "$SET/${nn}_witness.py" 2>&1 | tail -n 1)
  if ! git -C "$WT" apply "$SET/$nn.patch"; then
    echo "$nn PATCH DOES NOT APPLY"; continue
  fi
  patched=$("$PY" "$SET/${nn}_witness.py" 2>&1 | tail -n 1)
  git -C "$WT" checkout -q -- engine
  if [ "$clean" != "$patched" ]; then
    echo "$nn differs | clean: $clean | patched: $patched"
  else
    echo "$nn SAME | $clean"
  fi
done
if [ -z "$(git -C "$WT" status --porcelain -- engine)" ]; then
  echo "worktree engine clean: yes"
else
  echo "worktree engine clean: NO"
fi
