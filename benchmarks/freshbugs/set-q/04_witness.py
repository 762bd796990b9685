"""04: the logits a Generation / Scores hands back: does row i still have its maximum at the chosen
token (tokens[i])? Margins and tokens are printed too."""
import numpy as np

from _w import engine, h, small_model

eng = engine(small_model(), act_dtype="f32")
gen = eng.generate([5, 6, 7, 8], 6)
sc = eng.score([5, 6, 7, 8, 9, 10])
print("generate tokens", gen.tokens, "margins", [round(m, 4) for m in gen.margins])
print("score tokens", sc.tokens, "logits digest", h(sc.logits))
ok_gen = int(np.sum(gen.logits.argmax(axis=1) == np.array(gen.tokens)))
ok_sc = int(np.sum(sc.logits.argmax(axis=1) == np.array(sc.tokens)))
print(f"logit rows whose argmax is the returned token: generate {ok_gen}/{len(gen.tokens)}, score {ok_sc}/{len(sc.tokens)}")
