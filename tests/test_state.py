"""The state pool (variable tensors): its layout apart from the arena, the target pool that
holds it, and the verifier's checks of both."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import arenaplan as ap
from arenaplan.cli.run_model import model_inputs
from conftest import model_path

KEYWORD = "tflm_keyword_scrambled_int8"     # 10,240 bytes of SVDF state, 288 bytes of arena


def _keyword_runs(p, count=4):
    """Outputs of ``count`` chained runs: the state carries from one to the next."""
    it = ap.Interpreter(p)
    return [it.run(xs) for xs in model_inputs(p.model, runs=count, seed=1)]


def test_state_is_reported_apart_from_the_arena():
    m = ap.load_tflite(model_path("tflm_keyword_scrambled_int8"))
    p = ap.plan(m)
    # the state never enters the arena, and the SVDFs run "fused" (no scratch): the peak is the
    # int16 input (192 B) beside its int8 requantisation (96 B)
    assert p.arena_bytes == p.lower_bound_bytes == 288
    assert p.state_bytes == p.variable_bytes == 10240 and len(p.state_buffers) == 7
    assert all(b.offset % 16 == 0 and b.fill == 0 for b in p.state_buffers)
    assert "state                  10,240 B  (7 variable tensors" in p.summary()
    data = p.to_dict()
    assert data["state_bytes"] == 10240 and data["arena_bytes"] == 288
    assert [b["tensor"] for b in data["state_buffers"]] == m.variable_tensors()
    # the LSTM's two state tensors (int8 output state, int16 cell state) each get a place
    lstm = ap.plan(ap.load_tflite(model_path("tflm_mnist_lstm_int8")))
    assert lstm.verify() and lstm.state_bytes == sum(-(-b.size // 16) * 16 for b in lstm.state_buffers)
    assert sorted(b.size for b in lstm.state_buffers) == [20, 40]


def test_verify_checks_the_state_pool():
    p = ap.plan(ap.load_tflite(model_path("tflm_keyword_scrambled_int8")))
    buffers = list(p.state_buffers)
    buffers[1] = dataclasses.replace(buffers[1], offset=buffers[0].offset)
    with pytest.raises(ap.InvalidPlan, match="share bytes"):
        dataclasses.replace(p, state_buffers=buffers).verify()
    with pytest.raises(ap.InvalidPlan, match="outside the state pool"):
        dataclasses.replace(p, state_bytes=p.state_bytes - 16).verify()
    with pytest.raises(ap.InvalidPlan, match="the model's variable tensors"):
        dataclasses.replace(p, state_buffers=p.state_buffers[1:]).verify()


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
    from harness import svdf_models
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
    from harness import svdf_models
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
