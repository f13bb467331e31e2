"""Fuzz plan-file loading: a byte string is read as a plan file of a built-in model; a
plan the loader accepts must verify, carry the figures its buffers give, and run.

    python tests/fuzz/fuzz_plan_file.py -runs=2000            # what CI runs
    python tests/fuzz/fuzz_plan_file.py -max_total_time=600   # a longer run
"""
from __future__ import annotations

import atheris
import numpy as np

with atheris.instrument_imports():
    from common import EXPECTED, main
    import arenaplan as ap

MODEL = ap.zoo.load("ds_cnn")
TARGET = ap.targets.get("cortex-m7")
X = np.zeros(MODEL.tensors[MODEL.inputs[0]].shape, np.int8)


def seeds() -> list:
    plans = [ap.plan(MODEL), ap.plan(MODEL, mode="speed"), ap.plan(MODEL, target=TARGET)]
    return [p.to_json().encode() for p in plans]


def test_one(data: bytes) -> None:
    text = data.decode("utf-8", errors="replace")
    try:
        plan = ap.Plan.from_json(text, MODEL)
    except EXPECTED:
        return
    plan.verify()
    again = ap.Plan.from_json(plan.to_json(), MODEL)
    assert (again.arena_bytes, again.lower_bound_bytes, again.greedy_size_bytes) == \
        (plan.arena_bytes, plan.lower_bound_bytes, plan.greedy_size_bytes)
    ap.Interpreter(plan).run(X)


if __name__ == "__main__":
    main(test_one, seeds())
