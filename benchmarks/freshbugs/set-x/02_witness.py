"""02: VT_CPU_THREADS=N runs the engine's GEMV column chunks and attention KV heads on N threads
(docs/ENVIRONMENT.md: "engine thread pool size"). After some generation the pool has started its
workers: N of them, the configured size (same tokens as one thread)."""
import threading

import _w


def workers() -> int:
    return sum(1 for t in threading.enumerate() if t.name.startswith("ThreadPoolExecutor"))


model = _w.small_model(d_model=64, d_ff=96, vocab_size=128)
prompt = [(5 * i + 1) % 128 for i in range(24)]
reference = _w.engine(model).generate(prompt, 12).tokens
counts = {}
for threads in (2, 3, 4):
    before = workers()
    e = _w.engine(model, cpu_threads=threads)
    same = True
    for _ in range(3):
        same &= e.generate(prompt, 12).tokens == reference
        e.score(prompt)
    counts[threads] = workers() - before
    e.close()
    print(f"VT_CPU_THREADS={threads}: pool workers {counts[threads]}, tokens as 1 thread {same}")
print("summary: workers per configured thread count", counts)
