"""Engine.forward pairs seqs[i] with new_tokens[i]: two sequences and one token list is a caller error."""
from _w import engine, outcome, small_model

eng = engine(small_model())
s1, s2 = eng.kv.new_sequence(), eng.kv.new_sequence()
print("matched:", outcome(lambda: len(eng.forward([s1], [[1, 2, 3]]))))
print("2 seqs, 1 token list:", outcome(lambda: [len(x) for x in eng.forward([s1, s2], [[4, 5]])]))
