"""13: scoped_env puts back what was there when its block ends, also when blocks nest (a probe that
sets the block size and, inside, the thread count or the block size again)."""
import os

from vtengine.knobs import Knobs, scoped_env

for name in list(os.environ):
    if name.startswith("VT_"):
        del os.environ[name]
with scoped_env({"VT_KV_BLOCK_SIZE": "8"}):
    with scoped_env({"VT_KV_BLOCK_SIZE": "4", "VT_CPU_THREADS": "2"}):
        inner = Knobs.from_env()
    middle = Knobs.from_env()
after = Knobs.from_env()
print(f"inner {inner.kv_block_size}/{inner.cpu_threads}, middle {middle.kv_block_size}/{middle.cpu_threads}, "
      f"after {after.kv_block_size}/{after.cpu_threads}, VT_KV_BLOCK_SIZE set after: {'VT_KV_BLOCK_SIZE' in os.environ}")
