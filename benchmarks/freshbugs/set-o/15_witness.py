"""An empty prompt is just <bos>: encode gives [256] and `vtengine generate --prompt ''` works."""
from _w import cli
from vtengine.tokenizer import encode

r = cli("generate", "--prompt", "", "--tokens", "2")
print("encode('') =", encode(""), "| generate rc", r.returncode)
