# a model with vocab 257 holds bytes + <bos> but not <eos>/<pad>: text must be refused below 259
from vtengine import tokenizer

seen = []
for vocab in (256, 257, 258, 259):
    try:
        tokenizer.check_vocab(vocab, "m")
        seen.append(f"{vocab}:accepted")
    except tokenizer.VocabError:
        seen.append(f"{vocab}:refused")
print(" ".join(seen))
