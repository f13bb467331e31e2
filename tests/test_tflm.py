"""ap.tflm against TensorFlow Lite Micro itself (the tflite-micro package, host build)."""
import struct
from pathlib import Path

import pytest

import arenaplan as ap
from harness.tflm_support import HAVE_TFLM, RUNNABLE, trial
from conftest import MODELS_DIR

needs_tflm = pytest.mark.skipif(not HAVE_TFLM, reason="tflite-micro is not importable")


def model_path(name):
    p = Path(MODELS_DIR) / f"{name}.tflite"
    if not p.exists():
        pytest.skip(f"{p} not found")
    return p


@needs_tflm
@pytest.mark.parametrize("name", RUNNABLE)
def test_host_arena_is_tflms(name):
    path = model_path(name)
    r = ap.tflm.arena(ap.load_tflite(str(path)), pointer_bytes=8)
    ok = trial(str(path), r.arena_size)
    assert ok["ok"], f"TFLM does not allocate {name} in the predicted {r.arena_size} B"
    assert (ok["head"], ok["tail"]) == (r.head_bytes, r.tail_bytes)
    assert not trial(str(path), r.arena_size - 16)["ok"]
    assert r.line() == f"constexpr int kTensorArenaSize = {r.arena_size};"


@needs_tflm
@pytest.mark.parametrize("name", RUNNABLE)
def test_offline_plan_runs_in_predicted_arena(name, tmp_path):
    path = model_path(name)
    out = tmp_path / "planned.tflite"
    pred = ap.tflm.with_offline_plan(str(path), str(out))
    base = ap.tflm.arena(ap.load_tflite(str(path)), pointer_bytes=8)
    assert pred.arena_size <= base.arena_size
    ok = trial(str(out), pred.arena_size)
    assert ok["ok"] and ok["head"] == pred.head_bytes and ok["tail"] == pred.tail_bytes
    assert not trial(str(out), pred.arena_size - 16)["ok"]
    ref = trial(str(path), base.arena_size)
    assert ok["outputs"] == ref["outputs"]
    values = ap.tflm.read_offline_plan(out)
    assert list(values[:3]) == [1, 0, len(ap.load_tflite(str(path)).tensors)]
    # the written model's own arena is read off the plan it now carries, as TFLM reads it
    carried = ap.tflm.arena(ap.load_tflite(str(out)), pointer_bytes=8)
    assert carried.offline == (values[3:] >= 0).any()
    assert (carried.arena_size, carried.head_bytes, carried.tail_bytes) == \
        (pred.arena_size, pred.head_bytes, pred.tail_bytes)
    with pytest.raises(ap.InvalidArgument, match="already carries an offline memory plan"):
        ap.tflm.with_offline_plan(str(out), str(tmp_path / "again.tflite"))
    again = ap.tflm.with_offline_plan(str(out), str(tmp_path / "again.tflite"), replace=True)
    assert again.arena_size == pred.arena_size


def test_offline_plan_saves_on_vww(tmp_path):
    path = model_path("mlperf_tiny_vww_mobilenetv1_025_int8")
    pred = ap.tflm.with_offline_plan(str(path), str(tmp_path / "v.tflite"))
    base = ap.tflm.arena(ap.load_tflite(str(path)), pointer_bytes=8)
    assert base.arena_size - pred.arena_size >= 18432


def test_offline_tensor_offsets_are_a_valid_plan():
    m = ap.load_tflite(str(model_path("tflm_keyword_scrambled_int8")))
    offsets, r = ap.tflm.plan_offline(m)
    reqs, what = ap.tflm.report.requests_of(m, offsets=offsets)
    placed, end = ap.tflm.greedy_offsets(reqs)
    for a in range(len(reqs)):
        for b in range(a):
            live = not (reqs[a][1] > reqs[b][2] or reqs[b][1] > reqs[a][2])
            apart = placed[a] + reqs[a][0] <= placed[b] or placed[b] + reqs[b][0] <= placed[a]
            assert not live or apart or 0 in (reqs[a][0], reqs[b][0])
    assert r.head_bytes == (end + 15) // 16 * 16


def test_breakdown_and_predictions():
    m = ap.load_tflite(str(model_path("tflm_keyword_scrambled_int8")))
    r = ap.tflm.arena(m, pointer_bytes=8)
    assert len(r.scratch()) == 14 and not r.predicted
    assert r.tail_by_kind()["variable tensors"] == 10240
    assert sum(a.bytes for a in r.allocations if a.where == "tail") == r.tail_bytes
    small = ap.tflm.arena(m, pointer_bytes=4)
    assert small.predicted and small.arena_size < r.arena_size
    assert "prediction" in small.summary()
    lstm = ap.tflm.arena(ap.load_tflite(str(model_path("tflm_mnist_lstm_int8"))), pointer_bytes=8)
    # four int16 gate buffers of 20 cells (40 B), each rounded to TFLM's 16-byte alignment
    assert [a.bytes for a in lstm.scratch()] == [48] * 4
    # CMSIS-NN's own int8 LSTM (a prediction, from cmsis_nn/unidirectional_sequence_lstm.cc):
    # three of them, eight int32 effective biases of 20 cells kept, its parameters in OpData
    # (4 int32 and 5 pointers a gate; 320 B with 8-byte pointers, 220 with 4)
    for p, params in ((8, 320), (4, 220)):
        ref = ap.tflm.arena(lstm_model := ap.load_tflite(str(model_path("tflm_mnist_lstm_int8"))), pointer_bytes=p)
        cm = ap.tflm.arena(lstm_model, kernels="cmsis-nn", pointer_bytes=p)
        assert [a.bytes for a in cm.scratch()] == [48] * 3 and cm.predicted
        assert cm.tail_by_kind()["kernel sums"] == 8 * 80
        # (the tail's 16-byte alignment rounds the sum)
        assert 0 <= cm.tail_by_kind()["kernel op data"] - ref.tail_by_kind()["kernel op data"] - params < 16
    kws = ap.load_tflite(str(model_path("mlperf_tiny_kws_dscnn_int8")))
    cm = ap.tflm.arena(kws, kernels="cmsis-nn")
    assert cm.predicted and cm.scratch() and cm.arena_size >= ap.tflm.arena(kws).arena_size
    assert "kTensorArenaSize" in cm.line()


def test_bad_input():
    m = ap.load_tflite(str(model_path("tflm_hello_world_int8")))
    with pytest.raises(ap.InvalidArgument):
        ap.tflm.arena(m, pointer_bytes=2)
    with pytest.raises(ap.InvalidArgument):
        ap.tflm.arena(m, kernels="fast")
    audio = model_path("tflm_audio_preprocessor_int8")
    with pytest.raises(ap.UnsupportedModel, match="Signal"):
        ap.tflm.arena(ap.load_tflite(str(audio)))


def test_an_offline_plan_for_another_model_is_refused(tmp_path):
    path = model_path("mlperf_tiny_kws_dscnn_int8")
    planned = tmp_path / "planned.tflite"
    ap.tflm.with_offline_plan(str(path), str(planned))
    n = len(ap.load_tflite(str(path)).tensors)
    data = planned.read_bytes()
    values = [int(v) for v in ap.tflm.read_offline_plan(planned)]
    head = struct.pack(f"<{n + 3}i", *values)   # the whole entry: found once
    assert data.count(head) == 1

    def with_header(version, count):
        return data.replace(head, struct.pack(f"<{n + 3}i", version, 0, count, *values[3:]))
    other = tmp_path / "other.tflite"
    other.write_bytes(with_header(1, n - 1))
    with pytest.raises(ap.InvalidArgument, match=rf"a model of {n - 1} tensors.*this model has {n} tensors"):
        ap.tflm.arena(ap.load_tflite(str(other)))
    # replacing it is what the message says to do, and gives the same plan as before
    again = ap.tflm.with_offline_plan(str(other), str(tmp_path / "again.tflite"), replace=True)
    assert again.arena_size == ap.tflm.arena(ap.load_tflite(str(planned)), pointer_bytes=8).arena_size
    bad_version = tmp_path / "v2.tflite"
    bad_version.write_bytes(with_header(2, n))
    with pytest.raises(ap.InvalidArgument, match="version 2"):
        ap.tflm.arena(ap.load_tflite(str(bad_version)))


def test_tensors_no_op_uses_are_placed_as_tflms_planner_places_them():
    """TFLM plans every tensor without data, used or not: one no op touches keeps lifetime
    (-1, -1) and overlaps only such tensors (they stack), one created and never used (last -1)
    overlaps nothing (greedy_memory_planner.cc DoesEntryOverlapInTime)."""
    from arenaplan.tflm.planner import greedy_offsets
    offsets, arena = greedy_offsets([(64, -1, -1, None), (32, -1, -1, None), (48, 0, 1, None),
                                     (16, 0, -1, None), (80, 1, 1, None)])
    # largest first: 80 at 0, 64 at 0 (before every op), 48 above the 80 it lives with,
    # 32 above the 64, 16 at 0 beside them all
    assert offsets == [0, 64, 80, 0, 0] and arena == 128
