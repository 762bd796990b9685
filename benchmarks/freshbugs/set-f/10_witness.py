"""Byte tokenizer: decode text around a special token."""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w

from vtengine import tokenizer
print(repr(tokenizer.decode(tokenizer.encode("hi") + [257] + tokenizer.encode("yo", bos=False))))
