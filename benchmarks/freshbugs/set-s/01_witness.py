"""Prompt lookup must find an n-gram that occurs at the very start of the history (index 0): the
history [5, 9, 13, 17, 21, 5, 9] proposes what followed the first (5, 9). Speculative decoding drafts
from the same lookup: a prompt [7, b, 20, 30, 40, 7] whose first greedy token is b has its tail
(7, b) only at index 0 (tokens equal greedy either way; the draft counters show the lookup)."""
from _w import engine, small_model

from vtengine.engine import propose_ngram

draft = propose_ngram([5, 9, 13, 17, 21, 5, 9], 2, 4)
print("propose_ngram:", draft)
eng = engine(small_model())
prompt = None
for b in range(64):
    candidate = [7, b, 20, 30, 40, 7]
    if eng.generate(candidate, 1).tokens[0] == b:
        prompt = candidate
        break
print("prompt:", prompt)
spec = eng.speculative(prompt, 12)
greedy = eng.generate(prompt, 12).tokens
print(f"speculative: equals greedy {spec.tokens == greedy}, proposed {spec.proposed}, accepted {spec.accepted}")
print(f"lookup from index 0: draft {draft}; speculative proposed/accepted {spec.proposed}/{spec.accepted}")
