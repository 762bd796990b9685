#!/bin/bash
cd /work/freshbugs; PY=/work/wt-bugs/.venv/bin/python
for p in [0-9][0-9].patch; do n=${p%.patch}
  git -C /work/wt-bugs apply /work/freshbugs/$p
  b=$($PY ${n}_witness.py 2>&1 | tail -3); git -C /work/wt-bugs checkout -- .
  o=$($PY ${n}_witness.py 2>&1 | tail -3)
  [ "$b" != "$o" ] && echo "$n differs" || echo "$n SAME"; done
