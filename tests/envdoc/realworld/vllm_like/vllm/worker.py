# ruff: noqa  -- a fixture modelled on another project's style, kept as that project writes it
import os

import vllm.envs as envs


def init_worker():
    block_size = envs.SERVE_BLOCK_SIZE  # a registry read: the lambda in envs.py is the read site
    rank = int(os.environ.get("LOCAL_RANK", "0"))
    if "SERVE_TRACE_FUNCTION" in os.environ:  # read outside the registry: undocumented
        trace = True
    return block_size, rank
