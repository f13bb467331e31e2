"""Ops: lowering a model's ops to the C kernels and their variants, NumPy-facing kernels,
the static ranking of variants."""
