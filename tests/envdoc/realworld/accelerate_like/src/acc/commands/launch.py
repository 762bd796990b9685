# ruff: noqa  -- a fixture modelled on another project's style, kept as that project writes it
import os

from acc.state import get_int_from_env
import acc.utils


def launch(args):
    if args.threads is None:
        args.threads = get_int_from_env(["OMP_NUM_THREADS"], 1)
    if acc.utils.parse_flag_from_env("ACC_USE_CPU"):
        args.cpu = True
    if os.environ.get("ACC_DEBUG_RDV_FILE"):
        args.debug = True
