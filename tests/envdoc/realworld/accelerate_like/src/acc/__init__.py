# ruff: noqa  -- a fixture modelled on another project's style, kept as that project writes it
from .state import PartialState
