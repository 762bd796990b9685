#!/bin/sh
# git bisect run's script: build, then judge (a failed build is untestable, 125).
D=$(dirname "$0")
"$D/build.sh" >/dev/null 2>&1 || exit 125
exec ${PYTHON:-python3} "$D/judge.py"
