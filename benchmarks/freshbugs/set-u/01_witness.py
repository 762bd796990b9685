"""01: decode of ids a model with a larger vocab than the tokenizer's produces (vt-tiny's vocab is 512: its
greedy ids may lie above the 259 tokenizer ids). The docstring: unused ids are shown as <id>."""
from _w import outcome
from vtengine import tokenizer

print("specials only:", outcome(lambda: tokenizer.decode([256, 72, 105, 257])))
print("ids 300 and 511 after text:", outcome(lambda: tokenizer.decode([256, 72, 105, 300, 511])))
