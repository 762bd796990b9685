"""Shared fixtures for the engine tests: one vt-tiny model per session, a short prompt, knobs."""

from __future__ import annotations

import pytest
from vtengine import tokenizer
from vtengine.knobs import Knobs
from vtengine.model import Model, load_model


@pytest.fixture(scope="session")
def tiny() -> Model:
    return load_model("vt-tiny")


@pytest.fixture(scope="session")
def prompt_ids() -> list[int]:
    return tokenizer.encode("The paged cache")


@pytest.fixture(scope="session")
def default_knobs() -> Knobs:
    return Knobs()
