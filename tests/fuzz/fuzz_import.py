"""Fuzz model import, then planning and running what imports: a byte string is read as a
.tflite file; a model that loads is planned (ops without kernels planned for memory only)
and the plan verified; a plan that can run is run on zeros and must give the same output
from its size and its speed plan.

    python tests/fuzz/fuzz_import.py -runs=2000              # what CI runs
    python tests/fuzz/fuzz_import.py -max_total_time=600     # a longer run
"""
from __future__ import annotations

import sys

import atheris
import numpy as np

with atheris.instrument_imports():
    from common import EXPECTED, main, shared_models
    import arenaplan as ap

#: Inputs larger than this are cut (a model's interesting bytes are its tables).
MAX_BYTES = 400_000


def test_one(data: bytes) -> None:
    try:
        model = ap.parse_tflite(data[:MAX_BYTES], source="fuzz")
    except EXPECTED:
        return
    try:
        size = ap.plan(model, require_kernels=False)
    except EXPECTED:
        return
    size.verify()
    if size.unsupported or sum(t.nbytes for t in model.tensors) > 4 << 20:
        return
    try:
        speed = ap.plan(model, mode="speed")
        inputs = [np.zeros(model.tensors[i].shape, model.tensors[i].dtype) for i in model.inputs]
        a = ap.Interpreter(size).run(inputs)
        b = ap.Interpreter(speed).run(inputs)
    except EXPECTED:
        return
    speed.verify()
    for x, y in zip(a if isinstance(a, list) else [a], b if isinstance(b, list) else [b]):
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), "size and speed plans disagree"


if __name__ == "__main__":
    main(test_one, [p.read_bytes() for p in shared_models()][:8])
