"""10: tokenizer.encode with and without <bos> (the documented return type is list[int]), a prompt joined to a
reference continuation as `vtengine score --prompt --reference` does, and that command itself."""
from _w import cli, outcome
from vtengine import tokenizer

print("encode('Hi') type:", type(tokenizer.encode("Hi")).__name__,
      "| encode(' there', bos=False) type:", type(tokenizer.encode(" there", bos=False)).__name__)
print("prompt + reference ids:", outcome(lambda: tokenizer.encode("Hi") + tokenizer.encode(" there", bos=False)))
run = cli("score", "--prompt", "Hi", "--reference", " there")
print("vtengine score --prompt Hi --reference ' there': exit", run.returncode)
