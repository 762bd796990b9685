# decode of an id outside the byte range on the negative side: shown as <id> like any unused id
from vtengine import tokenizer

try:
    print(repr(tokenizer.decode([256, 72, -1, 105, 257])))
except Exception as e:
    print("error", type(e).__name__, e)
