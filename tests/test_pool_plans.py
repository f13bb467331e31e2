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
KEYWORD = "tflm_keyword_scrambled_int8"     # 10,240 bytes of SVDF state, 288 bytes of arena


def _keyword_runs(p, count=4):
    """Outputs of ``count`` chained runs: the state carries from one to the next."""
    from arenaplan.cli.run_model import model_inputs
    it = ap.Interpreter(p)
    return [it.run(xs) for xs in model_inputs(p.model, runs=count, seed=1)]


def test_the_state_takes_its_bytes_from_the_fastest_pool_with_room():
    m = ap.load_tflite(model_path(KEYWORD))
    t = ap.targets.get("cortex-m7")
    p = ap.plan(m, target=t)
    assert p.verify() and p.state_pool == "dtcm" and p.state_bytes == 10240
    assert p.ram_bytes == p.arena_bytes + 10240
    # dtcm keeps room for the state and 208 bytes: the 288-byte arena no longer fits beside
    # it, so the activations spill to sram and the state stays in dtcm
    tight = t.with_pool("dtcm", capacity=10240 + 208)
    q = ap.plan(m, target=tight)
    assert q.verify() and q.state_pool == "dtcm"
    assert q.pool_bytes["dtcm"] + q.state_bytes <= 10240 + 208 and q.pool_bytes["sram"] > 0
    for got, want in zip(_keyword_runs(q), _keyword_runs(ap.plan(m))):
        np.testing.assert_array_equal(got, want)
    # too small for the state: the next workspace pool holds it
    r = ap.plan(m, target=t.with_pool("dtcm", capacity=8192))
    assert r.verify() and r.state_pool == "sram"


def test_the_state_pool_can_be_named_and_is_checked():
    m = ap.load_tflite(model_path(KEYWORD))
    t = ap.targets.get("cortex-m7")
    p = ap.plan(m, target=t, state_pool="sram")
    assert p.verify() and p.state_pool == "sram"
    with pytest.raises(ap.InvalidArgument, match="'stack' is a stack pool.*needs a workspace pool"):
        ap.plan(m, target=t, state_pool="stack")
    with pytest.raises(ap.InvalidArgument, match="no pool 'itcm'"):
        ap.plan(m, target=t, state_pool="itcm")
    with pytest.raises(ap.InvalidArgument, match="give target= too"):
        ap.plan(m, state_pool="sram")
    with pytest.raises(ap.PlanDoesNotFit, match=r"does not fit pool 'dtcm' of 4,096 bytes \(6,144 bytes short\)"):
        ap.plan(m, target=t.with_pool("dtcm", capacity=4096), state_pool="dtcm")
    small = t.with_pool("dtcm", capacity=2048).with_pool("sram", capacity=4096)
    with pytest.raises(ap.PlanDoesNotFit, match=r"fits no pool .* 'sram', has 4,096 bytes \(6,144 bytes short\)") as exc:
        ap.plan(m, target=small)
    assert exc.value.short_by == 6144
    # room for the state but not for the activations beside it: the error says so
    full = t.with_pool("dtcm", capacity=10240).with_pool("sram", capacity=0)
    with pytest.raises(ap.PlanDoesNotFit, match="no room once the state.s 10,240 bytes are in it"):
        ap.plan(m, target=full)


def test_verify_counts_the_state_against_its_pool():
    m = ap.load_tflite(model_path(KEYWORD))
    t = ap.targets.get("cortex-m7")
    p = ap.plan(m, target=t)
    cap = t.pool("dtcm").capacity
    # the same placement on a target whose dtcm holds the arena but not the state too
    shrunk = t.with_pool("dtcm", capacity=p.pool_bytes["dtcm"] + 16)
    with pytest.raises(ap.InvalidPlan, match=r"pool 'dtcm' holds 288 planned bytes and the state's 10,240"):
        dataclasses.replace(p, target=shrunk).verify()
    with pytest.raises(ap.InvalidPlan, match="state pool 'itcm' is not a pool"):
        dataclasses.replace(p, state_pool="itcm").verify()
    with pytest.raises(ap.InvalidPlan, match="has no target"):
        dataclasses.replace(ap.plan(m), state_pool="dtcm").verify()
    assert cap == 128 * 1024


def test_frontier_over_a_target_leaves_room_for_the_state():
    m = ap.load_tflite(model_path(KEYWORD))
    t = ap.targets.get("cortex-m4").with_pool("sram", capacity=10240 + 512)
    f = ap.frontier(m, latency="model:cortex-m4", target=t)
    assert f.points
    for point in f.points:
        plan = point.plan
        assert plan.verify() and plan.state_pool == "sram"
        assert plan.pool_bytes["sram"] + plan.state_bytes <= 10240 + 512


def test_activations_that_do_not_fit_beside_the_state_are_named():
    m = ap.load_tflite(model_path(KEYWORD))
    t = ap.targets.get("cortex-m4").with_pool("sram", capacity=10240 + 256)
    with pytest.raises(ap.PlanDoesNotFit, match=r"pool 'sram' would need .* it has 256 once the state's "
                                                r"10,240 bytes are in it"):
        ap.plan(m, target=t.with_pool("stack", capacity=0))


def test_models_sharing_a_target_leave_room_for_every_state():
    """Models that run one at a time share the pools but each keeps its state: every plan
    of the joint frontier leaves room for all the states together."""
    import svdf_models
    keyword = ap.load_tflite(model_path(KEYWORD))
    chain = svdf_models.svdf_chain()
    both = 10240 + 240
    t = ap.targets.get("cortex-m4").with_pool("sram", capacity=both + 1024)
    f = ap.frontier([keyword, chain], latency="model:cortex-m4", target=t)
    assert f.points
    for point in f.points:
        for plan in point.plan.plans:
            assert plan.verify() and plan.state_pool == "sram"
            assert plan.pool_bytes["sram"] + both <= both + 1024
    assert f.points[0].plan.state_bytes == both
    # room for one state but not both: the joint frontier says so by how much
    with pytest.raises(ap.PlanDoesNotFit, match=r"state of .* and the models sharing the target "
                                                r"\(10,480 bytes\) .*\(240 bytes short\)"):
        ap.frontier([keyword, chain], latency="model:cortex-m4",
                    target=t.with_pool("sram", capacity=10240).with_pool("stack", capacity=0))


def test_multi_plan_verify_counts_every_models_state():
    """Plans made one by one each leave room for their own state only; put together in a
    MultiPlan they must also leave room for the other's: verify names the pool and the bytes."""
    import svdf_models
    keyword = ap.load_tflite(model_path(KEYWORD))
    chain = svdf_models.svdf_chain()
    # room for the keyword model's 288-byte arena beside either state, not beside both
    t = ap.targets.get("cortex-m4").with_pool("sram", capacity=10240 + 288 + 100).with_pool("stack", capacity=0)
    alone = [ap.plan(m, target=t) for m in (keyword, chain)]
    for p in alone:
        assert p.verify() and p.state_pool == "sram"
    assert [p.pool_bytes["sram"] for p in alone] == [288, 48]
    with pytest.raises(ap.InvalidPlan, match=r"pool 'sram': tflm_keyword_scrambled_int8's plan uses 288 bytes "
                                             r"of it and the models' states 10,480: 140 more than its capacity "
                                             r"of 10,628"):
        ap.MultiPlan(alone).verify()
    # planned together, each plan leaves room for both states
    roomy = t.with_pool("sram", capacity=10240 + 240 + 288)
    joint = ap.frontier([keyword, chain], latency="model:cortex-m4", target=roomy)
    for point in joint.points:
        assert point.plan.verify()
    # a plan for another target cannot share the arena
    other = ap.plan(chain, target=ap.targets.get("cortex-m7"))
    with pytest.raises(ap.InvalidPlan, match="different targets"):
        ap.MultiPlan([alone[0], other]).verify()
    # nor a plan for the same target with another pool size: the joint check would read
    # the first plan's capacities
    roomier = ap.plan(chain, target=t.with_pool("sram", capacity=20000))
    with pytest.raises(ap.InvalidPlan, match=r"different targets \(two configurations of cortex-m4\)"):
        ap.MultiPlan([alone[0], roomier]).verify()


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
