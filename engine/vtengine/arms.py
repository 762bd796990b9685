"""The kernel-arm registry, as data: every arm's kernel, name, knob, whether it is the default,
whether it is bit-exact with the default, and whether its order is the host's. Gates and mutations
enumerate this instead of hard-coding. The arm is selected once, from resolved knobs, by
:func:`select_arms`. ``vtengine.armcheck.differs_here`` measures what a host-dependent arm does on this machine."""

from __future__ import annotations

from dataclasses import dataclass

from vtengine.knobs import Knobs


@dataclass(frozen=True)
class Arm:
    kernel: str
    name: str
    knob: str | None  # the VT_* flag that opts in; None for the default
    default: bool
    bit_exact_with_default: bool
    summary: str
    # True when the arm's summation order is chosen by the host (BLAS build, CPU, thread count), so
    # whether its bits differ from the default's is measured here (differs_here), never promised
    host_dependent: bool = False


ARMS: tuple[Arm, ...] = (
    Arm("paged_attention", "default", None, True, True,
        "q.k sequential along head_dim, softmax (max-subtracted, exp in float64), V sequential over keys"),
    Arm("paged_attention", "scalar_fma", "VT_CPU_PAGED_ATTN_SCALAR_FMA", False, False,
        "4-lane pairwise q.k with exact fma, fused (fma) V accumulate"),
    Arm("paged_attention", "bfdot", "VT_CPU_PAGED_ATTN_BFDOT", False, False,
        "bf16 pair-dot q.k for q=bf16, kv=bf16 (other dtypes fall back to default)"),
    Arm("gemv", "default", None, True, True,
        "float32 products, accumulate sequential along K"),
    Arm("gemv", "bf16_dot", "VT_CPU_GEMV_BF16_DOT", False, False,
        "pair-dot: adjacent K products summed, pairs accumulated sequentially"),
    Arm("gemv", "blas", "VT_CPU_GEMV_BLAS", False, False,
        "BLAS matmul: fast, order depends on batch shape and BLAS threads", host_dependent=True),
)

KERNELS: tuple[str, ...] = ("paged_attention", "gemv")


def select_arms(knobs: Knobs) -> dict[str, str]:
    """Which arm each kernel runs under these knobs. Precedence when several flags are set:
    attention scalar_fma > bfdot > default; gemv blas > bf16_dot > default."""
    if knobs.paged_attn_scalar_fma:
        attention = "scalar_fma"
    elif knobs.paged_attn_bfdot:
        attention = "bfdot"
    else:
        attention = "default"
    if knobs.gemv_blas:
        gemv = "blas"
    elif knobs.gemv_bf16_dot:
        gemv = "bf16_dot"
    else:
        gemv = "default"
    return {"paged_attention": attention, "gemv": gemv}


def arm(kernel: str, name: str) -> Arm:
    for candidate in ARMS:
        if candidate.kernel == kernel and candidate.name == name:
            return candidate
    raise KeyError(f"no arm {name!r} for kernel {kernel!r}")
