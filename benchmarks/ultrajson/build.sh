#!/bin/sh
# Build ultrajson's C extension at the current commit into .vtbuild/ without setuptools or a download:
# the sources setup.py's Extension names (python/*.c, lib/*.c, lib/dconv_wrapper.cc when present, the
# bundled double-conversion *.cc), compiled with the system gcc/g++ for the interpreter in $PYTHON
# (default python3). Paths are not quoted on purpose, as in many real build scripts: run it from a
# folder without spaces (vtbisect's build step makes sure it is). Counts its runs in $BENCH_COUNT.
set -e
PY=${PYTHON:-python3}
INC=$($PY -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
SUFFIX=$($PY -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
OUT=$PWD/.vtbuild
rm -rf $OUT && mkdir -p $OUT/obj $OUT/include
echo '#define UJSON_VERSION "0.0.0"' > $OUT/include/version.h
FLAGS="-O1 -fPIC -D_GNU_SOURCE -I$OUT/include -I$PWD/python -I$PWD/lib -I$PWD/deps/double-conversion/double-conversion -I$INC"
for f in python/*.c lib/*.c; do
    gcc $FLAGS -c $f -o $OUT/obj/$(basename $f).o
done
for f in lib/*.cc deps/double-conversion/double-conversion/*.cc; do
    [ -f $f ] || continue
    g++ $FLAGS -c $f -o $OUT/obj/$(basename $f).o
done
g++ -shared -o $OUT/ujson$SUFFIX $OUT/obj/*.o -lm
rm -rf $OUT/obj
if [ -n "$BENCH_COUNT" ]; then echo "$VTBISECT_COMMIT" >> $BENCH_COUNT; fi
