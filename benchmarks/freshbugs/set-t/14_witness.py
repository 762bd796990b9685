"""14: tokenizer.decode of the same byte ids given as a list, as a list with specials, and as a NumPy int64
array (as argmax over logits gives them)."""
import numpy as np

from _w import outcome
from vtengine import tokenizer

text = "héllo wörld"
ids = tokenizer.encode(text, bos=False)
print("list:", outcome(lambda: tokenizer.decode(ids) == text))
print("list with <bos>:", outcome(lambda: tokenizer.decode([tokenizer.BOS, *ids]) == "<bos>" + text))
print("int64 array:", outcome(lambda: tokenizer.decode(np.array(ids, dtype=np.int64)) == text))
