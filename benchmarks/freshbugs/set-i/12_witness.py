"""12: decode replaces invalid UTF-8 with U+FFFD (documented), it does not drop it silently."""
from vtengine import tokenizer

text = tokenizer.decode([256, 72, 0xFF, 105, 0xC3, 257])  # <bos> H <bad> i <cut 2-byte> <eos>
print("decoded:", ascii(text))
