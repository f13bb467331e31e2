"""Plans over a target's pools: capacities, spilling, stack rules, errors, execution."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import arenaplan as ap
from conftest import MLPERF_TINY, model_path


def _input(m, seed=0):
    return np.random.default_rng(seed).integers(-128, 128, size=m.tensors[m.inputs[0]].shape, dtype=np.int8)


@pytest.mark.parametrize("name", MLPERF_TINY)
@pytest.mark.parametrize("target", ["cortex-m4", "cortex-m7", "cortex-m55"])
def test_plans_fit_every_pool_and_run_bit_exactly(name, target):
    m = ap.load_tflite(model_path(name))
    t = ap.targets.get(target)
    x = _input(m)
    # the same rounding rule as the target's plans (Cortex-M targets round as TFLM)
    host = ap.plan(m, mode="speed", reference=t.reference)
    assert host.verify()
    want = ap.Interpreter(host).run(x)
    for mode in ("size", "speed"):
        p = ap.plan(m, target=t, mode=mode)
        assert p.verify()
        assert set(p.pool_bytes) == {q.name for q in t.pools}
        for pool in t.pools:
            assert p.pool_bytes[pool.name] <= pool.capacity
        np.testing.assert_array_equal(ap.Interpreter(p).run(x), want)


def test_a_small_fast_pool_spills_to_the_next():
    m = ap.load_tflite(model_path("mlperf_tiny_vww_mobilenetv1_025_int8"))
    t = ap.targets.get("cortex-m7").with_pool("dtcm", capacity="16KiB")
    p = ap.plan(m, target=t)
    assert p.verify()
    assert 0 < p.pool_bytes["dtcm"] <= 16 * 1024 and p.pool_bytes["sram"] > 0
    x = _input(m)
    np.testing.assert_array_equal(ap.Interpreter(p).run(x), ap.Interpreter(ap.plan(m)).run(x))


def test_only_small_scratch_goes_on_the_stack():
    m = ap.load_tflite(model_path("mlperf_tiny_kws_dscnn_int8"))
    # A fast pool just big enough for the activations: scratch must go elsewhere, and a
    # 2,688-byte depthwise row buffer is within this target's stack limit. The cost model
    # makes the padded-row depthwise variants pay (as they do on the host; with the
    # Cortex-M4's counted instructions they do not, and no scratch would be wanted).
    latency = ap.CostModel("cortex-m4", cycles_per_mac={"DEPTHWISE_CONV_2D:padded_rows": 6.0})
    t = dataclasses.replace(ap.targets.get("cortex-m4").with_pool("sram", capacity=16000),
                            stack_scratch_limit=4096)
    p = ap.plan(m, target=t, mode="balanced", latency=latency)
    assert p.verify()
    assert any(b.pool == "stack" for b in p.buffers)     # the fast variants' scratch went there
    for b in p.buffers:
        if b.pool == "stack":
            assert b.kind == "scratch" and b.size <= t.stack_scratch_limit
    no_stack = t.with_pool("stack", capacity=0)
    q = ap.plan(m, target=no_stack, mode="balanced", latency=latency)
    assert q.pool_bytes["stack"] == 0 and all(b.pool != "stack" for b in q.buffers)
    assert q.latency_s > p.latency_s        # without the stack the row buffers do not fit
    small = dataclasses.replace(t, stack_scratch_limit=1024)
    r = ap.plan(m, target=small, mode="balanced", latency=latency)
    assert all(b.size <= 1024 for b in r.buffers if b.pool == "stack")


def test_io_pool_holds_inputs_and_outputs():
    m = ap.load_tflite(model_path("mlperf_tiny_kws_dscnn_int8"))
    p = ap.plan(m, target="cortex-m7", io_pool="sram")
    io = set(m.inputs) | set(m.outputs)
    for b in p.buffers:
        if io & set(b.tensors):
            assert b.pool == "sram"
    with pytest.raises(ap.InvalidArgument, match="no pool 'flash'"):
        ap.plan(m, target="cortex-m7", io_pool="flash")


def test_one_core_of_two_uses_only_its_pools():
    m = ap.load_tflite(model_path("mlperf_tiny_ic_resnet8_int8"))
    cm4 = ap.targets.get("dual-m7-m4").for_core("cm4").with_pool("m4_sram", capacity="32KiB")
    p = ap.plan(m, target=cm4)
    assert p.verify() and "m7_dtcm" not in p.pool_bytes
    assert p.pool_bytes["shared_sram"] > 0


def test_impossible_target_names_pool_bytes_and_op():
    m = ap.load_tflite(model_path("mlperf_tiny_vww_mobilenetv1_025_int8"))
    t = ap.targets.get("cortex-m4").with_pool("sram", capacity="40KiB")
    with pytest.raises(ap.PlanDoesNotFit) as info:
        ap.plan(m, target=t)
    e = info.value
    assert e.pool == "sram" and e.available == 40960 and e.needed > e.available
    assert e.op is not None and f"op {e.op}" in str(e) and "short" in str(e)


def test_balanced_and_frontier_over_pools():
    m = ap.load_tflite(model_path("mlperf_tiny_ic_resnet8_int8"))
    t = ap.targets.get("cortex-m7").with_pool("dtcm", capacity="32KiB")
    p = ap.plan(m, target=t, mode="balanced", latency="model:cortex-m7")
    assert p.verify() and all(p.pool_bytes[q.name] <= q.capacity for q in t.pools)
    f = ap.frontier(m, target=t, latency="model:cortex-m7")
    for point in f.points:
        assert point.plan.verify()
        assert all(point.plan.pool_bytes[q.name] <= q.capacity for q in t.pools)


def test_pool_plans_round_trip_through_files():
    m = ap.load_tflite(model_path("mlperf_tiny_vww_mobilenetv1_025_int8"))
    t = ap.targets.get("cortex-m7").with_pool("dtcm", capacity="16KiB")
    p = ap.plan(m, target=t, mode="speed")
    q = ap.Plan.from_json(p.to_json())
    assert q.pool_bytes == p.pool_bytes and q.target == t
    x = _input(m)
    np.testing.assert_array_equal(ap.Interpreter(q).run(x), ap.Interpreter(p).run(x))


# --- the state pool on a target -------------------------------------------------------------
def _pools_at_their_bounds(p):
    """Each pool's bytes against the live-bytes bound of the buffers placed in it."""
    out = {}
    for pool in p.pool_bytes:
        mine = [b for b in p.buffers if b.pool == pool]
        out[pool] = (p.pool_bytes[pool], ap.lower_bound([b.size for b in mine], [b.first for b in mine],
                                                         [b.last for b in mine], alignment=16) if mine else 0)
    return out


@pytest.mark.parametrize("name, target, mode", [
    ("tflm_keyword_scrambled_int8", "cortex-m7", "size"),
    ("mlperf_tiny_vww_mobilenetv1_025_int8", "cortex-m7", "balanced"),
    ("mlperf_tiny_ic_resnet8_int8", "cm4-of-dual", "size"),
])
def test_plans_at_every_pools_bound_say_optimal(name, target, mode, capsys):
    m = ap.load_tflite(model_path(name))
    t = (ap.targets.get("dual-m7-m4").for_core("cm4") if target == "cm4-of-dual"
         else ap.targets.get(target))
    p = ap.plan(m, target=t, mode=mode, latency="model:cortex-m7" if mode == "balanced" else None)
    assert p.verify()
    bounds = _pools_at_their_bounds(p)
    assert all(used == bound for used, bound in bounds.values()), bounds
    assert p.optimal
    assert "(proven optimal)" in p.summary()


def test_cli_plan_on_a_target_says_proven_optimal(capsys):
    from arenaplan.cli import main
    assert main(["plan", str(model_path("tflm_keyword_scrambled_int8")), "--target", "cortex-m7"]) == 0
    assert "(proven optimal)" in capsys.readouterr().out


def test_a_pool_above_its_bound_is_not_optimal():
    from arenaplan.planning.pools import pools_at_bound
    problem = ap.buffers.BufferProblem.build([16, 16, 16], [0, 1, 2], [0, 1, 2], 16)
    pools = ap.targets.get("cortex-m7").pools
    # three buffers never live together: one pool holding them at 48 bytes is 32 over its bound
    assert not pools_at_bound(problem, np.zeros(3, np.uint32), pools, [48, 0, 0])
    assert pools_at_bound(problem, np.zeros(3, np.uint32), pools, [16, 0, 0])


@pytest.mark.parametrize("pool, words", [("stack", "is a stack pool, which takes only scratch buffers"),
                                         ("flash", "unknown pool")])
def test_io_pool_that_cannot_hold_tensors_says_why(pool, words):
    t = ap.targets.get("cortex-m7")
    if pool == "flash":
        t = t.with_pool("flash", capacity="1MiB", kind="const")
        words = "is a const pool, which holds only constants"
    with pytest.raises(ap.InvalidArgument) as info:
        ap.plan(ap.zoo.load("ds_cnn"), target=t, io_pool=pool)
    assert words in str(info.value) and "dtcm, sram" in str(info.value)
