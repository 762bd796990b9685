"""Shared helper for the set-f witnesses: the embedded model and a default-knob engine."""
import hashlib
import os

os.environ.setdefault("VT_CACHE_DIR", "/tmp/freshbugs-f-cache")

from pathlib import Path

from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import load_model


def model():
    return load_model("vt-tiny", Path(os.environ["VT_CACHE_DIR"]))


def engine(max_tokens=None, **knobs):
    return Engine(model(), Knobs(**knobs), max_tokens=max_tokens)


def h(array):
    return hashlib.sha256(array.astype("<f4").tobytes()).hexdigest()[:16]
