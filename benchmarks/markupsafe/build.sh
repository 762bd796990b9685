#!/bin/sh
# Build MarkupSafe's C extension (src/markupsafe/_speedups.c, the one Extension setup.py names) with the
# system gcc for the interpreter in $PYTHON (default python3), in place: src/markupsafe/_speedups.so.
# Counts its runs in $BENCH_COUNT.
set -e
PY=${PYTHON:-python3}
INC=$($PY -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
gcc -O1 -fPIC -shared -I"$INC" -o src/markupsafe/_speedups.so src/markupsafe/_speedups.c
if [ -n "$BENCH_COUNT" ]; then echo "$VTBISECT_COMMIT" >> "$BENCH_COUNT"; fi
