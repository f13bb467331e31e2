"""The rounding rule as a plan setting: reference="tflm" is bit-exact with TensorFlow Lite
Micro's interpreter (the tflite-micro package) on every shared model both run; "litert" stays
LiteRT's (tests/test_interpreter.py). Bad values name themselves."""
from __future__ import annotations

import glob
import os

import numpy as np
import pytest

import arenaplan as ap

from harness.models import MODELS_DIR as MODELS


def _tflm():
    try:
        from tflite_micro.python.tflite_micro import runtime
    except ImportError as exc:  # the test extra pins it for x86-64
        pytest.skip(f"tflite-micro is not importable ({exc})")
    return runtime


def _inputs(m, seed):
    rng = np.random.default_rng(seed)
    t = m.tensors[m.inputs[0]]
    if t.dtype == "float32":
        return rng.standard_normal(t.shape).astype(np.float32)
    info = np.iinfo(np.dtype(t.dtype))
    return rng.integers(info.min, info.max + 1, size=t.shape).astype(t.dtype)


def _first(y):
    return np.asarray(y[0] if isinstance(y, list) else y).reshape(-1)


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(MODELS, "*.tflite"))),
                         ids=lambda p: os.path.basename(p)[:-7])
def test_tflm_reference_is_bit_exact_with_tflite_micro(path):
    runtime = _tflm()
    m = ap.load_tflite(path)
    try:
        p = ap.plan(m, reference="tflm")
    except ap.UnsupportedModel as exc:
        pytest.skip(f"arenaplan does not run it: {exc}")
    p.verify()
    assert p.reference == "tflm"
    micro = runtime.Interpreter.from_bytes(open(path, "rb").read(), arena_size=4 << 20)
    for seed in range(3):
        x = _inputs(m, seed)
        micro.reset()
        micro.set_input(x, 0)
        micro.invoke()
        np.testing.assert_array_equal(_first(ap.Interpreter(p).run(x)), micro.get_output(0).reshape(-1))


def test_the_rules_differ_on_the_autoencoder_only_where_fully_connected_rounds():
    m = ap.load_tflite(os.path.join(MODELS, "mlperf_tiny_ad_autoencoder_int8.tflite"))
    tflm, litert = ap.plan(m, reference="tflm"), ap.plan(m, reference="litert")
    tflm.verify()
    litert.verify()
    x = _inputs(m, 0)
    a, b = _first(ap.Interpreter(tflm).run(x)), _first(ap.Interpreter(litert).run(x))
    assert 0 < int((a != b).sum()) and int(np.abs(a.astype(int) - b.astype(int)).max()) == 1


def test_defaults_and_bad_values():
    m = ap.zoo.load("ds_cnn")
    assert ap.plan(m).reference == "litert"
    p = ap.plan(m, target="cortex-m4")
    p.verify()
    assert (p.reference, p.isa) == ("tflm", "arm-dsp")
    with pytest.raises(ap.InvalidArgument, match="'fixed'.*tflm.*litert"):
        ap.plan(m, reference="fixed")
