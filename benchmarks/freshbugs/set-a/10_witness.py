# tokenizer round trip of non-ASCII text, with a special token in the middle
from vtengine import tokenizer

text = "héllo wörld ✓ naïve"
ids = tokenizer.encode(text) + [tokenizer.EOS] + tokenizer.encode("ß", bos=False)
print(repr(tokenizer.decode(ids)))
print("round trip", tokenizer.decode(tokenizer.encode(text, bos=False)) == text)
