"""Both attention flags set: documented precedence is scalar_fma > bfdot."""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w

from vtengine.arms import select_arms
from vtengine.knobs import Knobs
print(select_arms(Knobs(paged_attn_scalar_fma=True, paged_attn_bfdot=True, gemv_blas=True, gemv_bf16_dot=True)))
