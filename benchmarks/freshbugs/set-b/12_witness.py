# decoding generated ids with an <eos> in the middle
from vtengine import tokenizer

ids = tokenizer.encode("ab") + [tokenizer.EOS] + tokenizer.encode("cd", bos=False)
print(repr(tokenizer.decode(ids)))
