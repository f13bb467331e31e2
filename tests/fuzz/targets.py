"""The fuzz targets' checks, one function per target, each taking one input (bytes).

Bad input must raise an ``ArenaplanError`` (which names what is wrong); anything else — a
different exception, a failed check, a crash, a sanitizer report — is a finding. The
``fuzz_*.py`` scripts run these under atheris; ``tests/test_fuzz_targets.py`` replays the
seeds and every input saved under ``regressions/<target>/``.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import arenaplan as ap

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))   # the checkout's harness: where the shared models are
from harness.models import MODELS_DIR as MODELS  # noqa: E402
REGRESSIONS = Path(__file__).resolve().parent / "regressions"

#: The exceptions a fuzz input may raise: the library's own, which carry a message.
EXPECTED = (ap.ArenaplanError,)


def shared_models() -> list:
    """The shared .tflite models, smallest first (the seed corpus of model import)."""
    if not MODELS.is_dir():
        return []
    return sorted(MODELS.glob("*.tflite"), key=lambda p: p.stat().st_size)


# --- model import, then planning and running what imports ---------------------------------
#: Inputs larger than this are cut (a model's interesting bytes are its tables).
IMPORT_MAX_BYTES = 400_000


def import_seeds() -> list:
    return [p.read_bytes() for p in shared_models()][:8]


def import_one(data: bytes) -> None:
    """A byte string read as a .tflite file; a model that loads is planned (ops without
    kernels for memory only) and verified; one that can run gives the same output from
    its size and speed plans."""
    try:
        model = ap.parse_tflite(data[:IMPORT_MAX_BYTES], source="fuzz")
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


# --- plan files -----------------------------------------------------------------------------
_PLAN_MODEL = None


def _plan_model():
    global _PLAN_MODEL
    if _PLAN_MODEL is None:
        _PLAN_MODEL = ap.zoo.load("ds_cnn")
    return _PLAN_MODEL


def plan_file_seeds() -> list:
    m = _plan_model()
    return [p.to_json().encode() for p in (ap.plan(m), ap.plan(m, mode="speed"),
                                           ap.plan(m, target="cortex-m7"))]


def plan_file_one(data: bytes) -> None:
    """A byte string read as a plan file of a built-in model; an accepted plan verifies,
    reloads with the same figures, and runs."""
    m = _plan_model()
    try:
        plan = ap.Plan.from_json(data.decode("utf-8", errors="replace"), m)
    except EXPECTED:
        return
    plan.verify()
    again = ap.Plan.from_json(plan.to_json(), m)
    assert (again.arena_bytes, again.lower_bound_bytes, again.greedy_size_bytes) == \
        (plan.arena_bytes, plan.lower_bound_bytes, plan.greedy_size_bytes)
    ap.Interpreter(plan).run(np.zeros(m.tensors[m.inputs[0]].shape, np.int8))


# --- the buffer planner ---------------------------------------------------------------------
def planner_seeds() -> list:
    return [bytes(range(64)), b"\xff" * 64, b"\x00" * 8]


class _Bytes:
    """Numbers drawn from a byte string, little-endian, zeros once it runs out."""

    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def take(self, low: int, high: int) -> int:
        width = max(1, ((high - low).bit_length() + 7) // 8)
        raw = self.data[self.at:self.at + width]
        self.at += width
        return low + int.from_bytes(raw, "little") % (high - low + 1)


def planner_one(data: bytes) -> None:
    """Buffers (sizes up to 2**64 - 1), a strategy and a capacity from the bytes; a plan
    returned verifies, is never below its bound, and keeps within the capacity."""
    b = _Bytes(data)
    n = b.take(0, 40)
    top = 2 ** 64 - 1 if b.take(0, 1) else 1 << 16
    sizes = [b.take(0, top) for _ in range(n)]
    first = [b.take(0, 20) for _ in range(n)]
    last = [f + b.take(0, 8) for f in first]
    alignment = 1 << b.take(0, 7)
    strategy = ap.STRATEGIES[b.take(0, len(ap.STRATEGIES) - 1)]
    capacity = b.take(0, 1 << 20) if b.take(0, 1) else None
    try:
        bp = ap.plan_buffers(sizes, first, last, alignment, strategy=strategy, time_limit_s=0.05,
                             step_limit=2000, capacity=capacity)
    except EXPECTED:
        return
    assert bp.verify()
    assert bp.lower_bound_bytes <= bp.arena_bytes
    if capacity:
        assert bp.arena_bytes <= capacity


# --- running --------------------------------------------------------------------------------
_RUNNERS = None


def _runners():
    global _RUNNERS
    if _RUNNERS is None:
        _RUNNERS = []
        for name in ("autoencoder", "ds_cnn"):
            m = ap.zoo.load(name)
            plans = [ap.plan(m), ap.plan(m, mode="speed"), ap.plan(m, mode="speed", target="cortex-m7", reference="litert")]
            for p in plans:
                p.verify()
            _RUNNERS.append((m, [ap.Interpreter(p) for p in plans]))
    return _RUNNERS


def run_seeds() -> list:
    return [bytes([0]) + bytes(range(256)), bytes([1]) + b"\x7f\x80" * 100]


def run_one(data: bytes) -> None:
    """Bytes fill a built-in model's input; its plans (size, speed, over a target's pools)
    give identical outputs."""
    if not data:
        return
    model, interpreters = _runners()[data[0] % len(_runners())]
    t = model.tensors[model.inputs[0]]
    body = data[1:] or b"\x00"
    raw = (body * (t.nbytes // len(body) + 1))[:t.nbytes]
    x = np.frombuffer(raw, np.int8).reshape(t.shape)
    outs = [it.run(x) for it in interpreters]
    for y in outs[1:]:
        assert np.array_equal(y, outs[0]), "plans of one model disagree"


#: target name -> (check of one input, seed inputs)
TARGETS = {
    "import": (import_one, import_seeds),
    "plan_file": (plan_file_one, plan_file_seeds),
    "planner": (planner_one, planner_seeds),
    "run": (run_one, run_seeds),
}
