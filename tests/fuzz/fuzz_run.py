"""Fuzz running: bytes fill the input of a built-in model; its size and speed plans, on
one arena and over a target's pools, must give identical outputs.

    python tests/fuzz/fuzz_run.py -runs=500                 # what CI runs
    python tests/fuzz/fuzz_run.py -max_total_time=600       # a longer run
"""
from __future__ import annotations

import atheris
import numpy as np

with atheris.instrument_imports():
    from common import main
    import arenaplan as ap

MODELS = [ap.zoo.load(name) for name in ("autoencoder", "ds_cnn")]
RUNNERS = [[ap.Interpreter(p) for p in (ap.plan(m), ap.plan(m, mode="speed"),
                                        ap.plan(m, mode="speed", target="cortex-m7"))]
           for m in MODELS]
for group in RUNNERS:
    for it in group:
        it.plan.verify()


def test_one(data: bytes) -> None:
    if not data:
        return
    k = data[0] % len(MODELS)
    t = MODELS[k].tensors[MODELS[k].inputs[0]]
    raw = (data[1:] * (t.nbytes // max(len(data) - 1, 1) + 1))[:t.nbytes] if len(data) > 1 else bytes(t.nbytes)
    x = np.frombuffer(raw, np.int8).reshape(t.shape)
    outs = [it.run(x) for it in RUNNERS[k]]
    for y in outs[1:]:
        assert np.array_equal(y, outs[0]), "plans of one model disagree"


if __name__ == "__main__":
    main(test_one, [bytes([0]) + bytes(range(256)), bytes([1]) + b"\x7f\x80" * 100])
