"""The instruction set as data: targets name it, plans record it (and plan files carry it),
the Interpreter runs any ISA this host has (arm-dsp everywhere, by its instructions' C definitions), every
ISA gives the same bits, and bad ISAs are refused naming both."""
from __future__ import annotations

import json

import numpy as np
import pytest

import arenaplan as ap
from arenaplan import _core
from arenaplan.ops.lowering import HOST_ISA, ISA_CODES


def _x(m, seed=0):
    t = m.tensors[m.inputs[0]]
    return np.random.default_rng(seed).integers(-128, 128, size=t.shape).astype(np.int8)


def test_isas_come_from_the_c_enum():
    assert ISA_CODES == {"portable": 0, "x86-avx2": 1, "arm-dsp": 2}
    assert HOST_ISA in ISA_CODES
    assert ap.targets.get("host").isa == HOST_ISA
    assert {ap.targets.get(n).isa for n in ("cortex-m4", "cortex-m7", "cortex-m33")} == {"arm-dsp"}
    assert ap.targets.get("cortex-m55").isa == "portable"


@pytest.mark.parametrize("name", ["ds_cnn"])
def test_every_isa_gives_the_same_bits(name):
    m = ap.zoo.load(name)
    outs = {}
    for isa in ISA_CODES:
        for mode in ("size", "speed"):
            p = ap.plan(m, mode=mode, isa=isa)
            p.verify()
            assert p.isa == isa and all(v.isa == isa for k in p.kernels for v in k.variants)
            outs[(isa, mode)] = np.asarray(ap.Interpreter(p).run(_x(m)))
    first = next(iter(outs.values()))
    for got in outs.values():
        np.testing.assert_array_equal(got, first)


def test_plan_files_carry_the_isa_and_refuse_one_the_build_lacks():
    m = ap.zoo.load("ds_cnn")
    p = ap.plan(m, isa="arm-dsp", reference="tflm")
    p.verify()
    q = ap.Plan.from_json(p.to_json(), m)
    assert (q.isa, q.reference) == ("arm-dsp", "tflm")
    d = json.loads(p.to_json())
    d["isa"] = "arm-mve"
    with pytest.raises(ap.InvalidPlan, match="'arm-mve'.*portable, x86-avx2, arm-dsp"):
        ap.Plan.from_json(json.dumps(d), m)
    # a file from before plans named their ISA (schema 3) holds this host's variants
    d = json.loads(ap.plan(m, isa=HOST_ISA).to_json())
    d["schema_version"] = 3
    del d["isa"], d["reference"]
    old = ap.Plan.from_json(json.dumps(d), m)
    assert (old.isa, old.reference) == (HOST_ISA, "litert")
    # an arm-dsp plan read as such a file names its variants as another ISA's: refused
    d = json.loads(p.to_json())
    d["schema_version"] = 3
    del d["isa"], d["reference"]
    with pytest.raises(ap.InvalidPlan, match=f"no {HOST_ISA} variant 'smlad'"):
        ap.Plan.from_json(json.dumps(d), m)


def test_a_plan_context_defaults_as_ap_plan_does():
    """One defaulting rule: a PlanContext without isa or reference takes the target's, else
    this host's best ISA and "litert", as ap.plan does; kernels of another ISA are refused."""
    from arenaplan.planning.context import PlanContext
    m = ap.zoo.load("ds_cnn")
    for target in (None, "cortex-m4", "cortex-m55"):
        ctx, p = PlanContext.build(m, target=target), ap.plan(m, target=target)
        assert (ctx.isa, ctx.reference) == (p.isa, p.reference)
        assert all(k.isa == ctx.isa for k in ctx.kernels)
    assert (PlanContext.build(m).isa, PlanContext.build(m, target="cortex-m4").reference) == (HOST_ISA, "tflm")
    assert ap.targets.isa_and_reference("cortex-m4", reference="litert") == ("arm-dsp", "litert")
    arm = PlanContext.build(m, isa="arm-dsp", reference="tflm")
    assert (arm.isa, arm.reference) == ("arm-dsp", "tflm")
    with pytest.raises(ap.InvalidArgument, match="kernels lowered for arm-dsp given to a portable context"):
        PlanContext.build(m, kernels=arm.kernels, isa="portable")


def test_bad_isas_name_both():
    m = ap.zoo.load("ds_cnn")
    with pytest.raises(ap.InvalidArgument, match="'arm-mve'.*portable, x86-avx2, arm-dsp"):
        ap.plan(m, isa="arm-mve")
    with pytest.raises(ap.InvalidArgument, match="'sparc'"):
        ap.targets.Target("board", (ap.targets.Pool("ram", "64KiB"),), isa="sparc")
    p = ap.plan(m, isa="portable")
    p.verify()
    with pytest.raises(ap.InvalidArgument, match="portable.*arm-dsp"):
        p.export_c("/tmp/never", isa="arm-dsp")


@pytest.mark.skipif(HOST_ISA != "x86-avx2", reason="needs an AVX2 host")
def test_an_isa_the_cpu_lacks_is_refused_at_run_time():
    m = ap.zoo.load("ds_cnn")
    p = ap.plan(m, isa="x86-avx2")
    p.verify()
    it = ap.Interpreter(p)
    try:
        _core.cpu_limit(0)
        with pytest.raises(ap.ArenaplanError, match="x86-avx2.*not supported by this CPU.*portable"):
            it.run(_x(m))
    finally:
        _core.cpu_limit(1)
