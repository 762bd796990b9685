#!/bin/bash
# For each bug: run its witness on the clean tree and with NN.patch applied; engine/ restored after each.
W=/tmp/setg-wt
S=$(cd "$(dirname "$0")" && pwd)
PY=/work/main/.venv/bin/python
export PYTHONPATH=$W/engine:$S VT_CACHE_DIR=/tmp/freshbugs-g-cache
for n in $(seq -w 1 15); do
  git -C $W checkout -q -- engine
  clean=$($PY $S/${n}_witness.py 2>&1 | tail -1)
  if ! git -C $W apply $S/$n.patch; then echo "$n PATCH DOES NOT APPLY"; continue; fi
  patched=$($PY $S/${n}_witness.py 2>&1 | tail -1)
  git -C $W checkout -q -- engine
  if [ "$clean" != "$patched" ]; then echo "$n differs | clean: $clean | patched: $patched"
  else echo "$n SAME | $clean"; fi
done
st=$(git -C $W status --short -- engine)
if [ -z "$st" ]; then echo "engine/ clean"; else echo "engine/ NOT clean:"; echo "$st"; fi
