"""10: decode(encode(text)) for ordinary text and for text holding U+FEFF (a BOM at the start of a
document, or a zero-width no-break space after a special token)."""
from vtengine.tokenizer import EOS, decode, encode

plain = "héllo ✓ wörld"
print("plain round trip:", decode(encode(plain)) == "<bos>" + plain)
bom = "\ufeffreport.txt from Windows"
doc2 = encode("first", bos=True) + [EOS] + encode("\ufeffsecond", bos=False)
print(f"BOM text: {decode(encode(bom))!r} | two documents: {decode(doc2)!r}")
