# ruff: noqa  -- a fixture modelled on another project's style, kept as that project writes it
from .environment import get_int_from_env, parse_choice_from_env, parse_flag_from_env, str_to_bool
