# ruff: noqa  -- a fixture modelled on another project's style, kept as that project writes it
import os

from .utils import get_int_from_env, parse_choice_from_env, parse_flag_from_env


class PartialState:
    def __init__(self, cpu=False):
        self.debug = parse_flag_from_env("ACC_DEBUG_MODE")
        if cpu:
            self.local_rank = get_int_from_env(
                ["LOCAL_RANK", "MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK"], 0
            )
            self.rank = get_int_from_env(["RANK", "PMI_RANK", "OMPI_COMM_WORLD_RANK", "MV2_COMM_WORLD_RANK"], 0)
        if "NCCL_P2P_DISABLE" not in os.environ or "NCCL_IB_DISABLE" not in os.environ:
            self.nccl_checked = True
        self.mixed_precision = parse_choice_from_env("ACC_MIXED_PRECISION", "no")
        os.environ["PYTORCH_ENABLE_MPS_FALLBACK"] = "1"  # a write, not a read
        self.fork_launched = parse_flag_from_env("FORK_LAUNCHED", 0)


class FSDPPlugin:
    def __post_init__(self):
        env_prefix = "FSDP_"
        self.sharding = os.environ.get(env_prefix + "SHARDING_STRATEGY", "FULL_SHARD")
        self.offload = str_to_bool(os.environ.get(env_prefix + "OFFLOAD_PARAMS", "False")) == 1
        self.prefetch = os.environ.get(env_prefix + "BACKWARD_PREFETCH", "BACKWARD_PRE")


def str_to_bool(value):
    return 1 if value.lower() in ("1", "true") else 0
