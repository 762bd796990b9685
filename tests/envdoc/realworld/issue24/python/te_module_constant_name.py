# Excerpt from https://github.com/NVIDIA/TransformerEngine at commit d0067d0da6cb01811b8072a7d304f0e00344ce2b; license: Apache-2.0. Source transformer_engine/pytorch/_extra_state.py lines 15,18 80,86. Small excerpt for scanner testing; unmodified except for elision markers.


UNSAFE_PICKLE_EXTRA_STATE_ENV = "NVTE_ALLOW_UNSAFE_PICKLE_EXTRA_STATE"

# ... (transformer_engine/pytorch/_extra_state.py)
    UNSAFE_LOAD = "unsafe_load"


def unsafe_pickle_extra_state_enabled() -> bool:
    """Return whether unsafe extra-state pickle loading is enabled."""
    return os.getenv(UNSAFE_PICKLE_EXTRA_STATE_ENV, "0") == "1"

