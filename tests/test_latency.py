"""Latency sources: cost models, tables, host measurement and its cache, prediction checks."""
from __future__ import annotations

import json

import pytest

import arenaplan as ap
from arenaplan.latency import sources as latency
from arenaplan.planning.context import PlanContext
from tiny_models import made_up_table, tiny_model

# The host source's brief windows here may well miss a spell of this machine's normal
# speed, which it says in a warning (checked on its own below).
pytestmark = pytest.mark.filterwarnings("ignore:host latency of .* measured while:RuntimeWarning")


def test_unknown_latency_source():
    with pytest.raises(ap.InvalidArgument, match="unknown latency source"):
        ap.frontier(ap.zoo.load("ds_cnn"), latency="fast")
    with pytest.raises(ap.InvalidArgument, match="unknown target profile"):
        ap.frontier(ap.zoo.load("ds_cnn"), latency="model:z80")


def test_bad_latency_tables(tmp_path):
    m = tiny_model()
    rows = made_up_table(m, 0)
    with pytest.raises(ap.InvalidArgument, match="no time for op 0"):
        ap.frontier(m, latency=[r for r in rows if r["op"] != 0])
    with pytest.raises(ap.InvalidArgument, match="no variant 'winograd'"):
        ap.frontier(m, latency=rows + [{"op": 0, "variant": "winograd", "seconds": 1.0}])
    with pytest.raises(ap.InvalidArgument, match="negative"):
        ap.frontier(m, latency=rows + [{"op": 0, "variant": "direct", "seconds": -1.0}])
    with pytest.raises(ap.InvalidArgument, match="not on tiny"):
        ap.frontier(m, latency={"model_sha256": "0" * 64, "rows": rows})
    with pytest.raises(ap.InvalidArgument, match="no op 99"):
        ap.frontier(m, latency=rows + [{"op": 99, "variant": "direct", "seconds": 1.0}])


def test_latency_table_files_override_a_base(tmp_path):
    m = tiny_model()
    base = ap.CostModel("cortex-m4")
    csv_path = tmp_path / "board.csv"
    csv_path.write_text("op,variant,cycles,clock_hz\n0,direct,1000,1000000\n")
    src = ap.TableLatency(csv_path, base=base)
    times = src.op_times(m, PlanContext.build(m, isa="portable", reference="litert").kernels)
    assert times[0]["direct"] == pytest.approx(0.001)
    ctx = PlanContext.build(m, isa="portable", reference="litert")
    assert times[1] == base.op_times(m, ctx.kernels)[1]
    json_path = tmp_path / "board.json"
    json_path.write_text(json.dumps({"model_sha256": m.digest, "rows": made_up_table(m, 1)}))
    assert ap.frontier(m, latency=str(json_path)).points


def quick_host(**kwargs) -> ap.HostLatency:
    """A host source that measures briefly: these tests check bookkeeping, not speed."""
    return ap.HostLatency(repeats=2, window_s=0.01, max_window_s=0.01, progress=False, **kwargs)


def no_measuring(*args, **kwargs):
    raise AssertionError("measured again despite the cache")


def test_host_latency_is_cached_on_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENAPLAN_CACHE_DIR", str(tmp_path))
    m = tiny_model()
    kernels = PlanContext.build(m, isa="portable", reference="litert").kernels
    first = quick_host().op_times(m, kernels)
    saved = json.loads((tmp_path / "host_latency.json").read_text())
    # the speed probe's fastest run is remembered beside the op times
    assert sum(key.startswith("speed probe|") for key in saved) == 1
    assert all(t >= 0 for op in first for t in op.values())
    assert sum(t for op in first for t in op.values()) > 0
    monkeypatch.setattr(ap.HostLatency, "measure_in_graph", no_measuring)
    monkeypatch.setattr(ap.HostLatency, "measure_isolated", no_measuring)
    assert quick_host().op_times(m, kernels) == first


def test_host_latency_keeps_zero_times_and_drops_bad_entries(tmp_path, monkeypatch):
    """An op cheaper than the clock's jitter measures 0 s: that is a figure, not a gap."""
    monkeypatch.setenv("ARENAPLAN_CACHE_DIR", str(tmp_path))
    m = tiny_model()
    kernels = PlanContext.build(m, isa="portable", reference="litert").kernels
    src = quick_host()
    keys = [src._key(k, v) for k in kernels for v in k.variants]
    table = {key: 0.0 if i == 0 else 1e-6 * i for i, key in enumerate(keys)}
    (tmp_path / "host_latency.json").write_text(json.dumps({**table, "bad": -1.0, "worse": "x"}))
    monkeypatch.setattr(ap.HostLatency, "measure_in_graph", no_measuring)
    times = src.op_times(m, kernels)
    assert [t for op in times for t in op.values()] == [table[k] for k in keys]


def test_host_latency_warns_when_measured_in_a_slow_spell(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENAPLAN_CACHE_DIR", str(tmp_path))
    m = tiny_model()
    kernels = PlanContext.build(m, isa="portable", reference="litert").kernels
    src = quick_host()
    # a record no window can meet: the machine looks a thousand times slower than normal
    (tmp_path / "host_latency.json").write_text(json.dumps({f"speed probe|{src._fingerprint}": 1e-9}))
    with pytest.warns(RuntimeWarning, match=r"ran \d+\.\d+x slower than its normal speed"):
        src.op_times(m, kernels)
    assert src.last_window["probe_vs_record"] > 100 and src.last_window["seconds"] > 0
    assert json.loads((tmp_path / "host_latency.json").read_text())[f"speed probe|{src._fingerprint}"] == 1e-9


def test_host_latency_figures_of_another_method_are_not_reused(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENAPLAN_CACHE_DIR", str(tmp_path))
    m = tiny_model()
    kernels = PlanContext.build(m, isa="portable", reference="litert").kernels
    src = quick_host()
    old = quick_host()
    old._fingerprint = src._fingerprint.replace(latency._METHOD, "in-graph")   # medians, before
    (tmp_path / "host_latency.json").write_text(json.dumps(
        {old._key(k, v): 1.0 for k in kernels for v in k.variants}))
    assert all(t < 1.0 for op in src.op_times(m, kernels) for t in op.values())


def test_host_latency_measures_ops_one_by_one_when_the_model_cannot_run():
    m = tiny_model()
    kernels = PlanContext.build(m, isa="portable", reference="litert").kernels
    src = quick_host(cache=False)
    todo = [(k, v) for k in kernels for v in k.variants]
    found = src.measure_isolated(m, todo)
    assert set(found) == {src._key(k, v) for k, v in todo}
    conv = [found[src._key(k, v)] for k, v in todo if k.type == "CONV_2D"]
    assert all(t > 0 for t in conv)


def test_host_latency_arguments_are_checked():
    for kwargs, words in (({"repeats": 0}, "repeats"), ({"window_s": -1}, "window_s"),
                          ({"min_sample_s": float("nan")}, "min_sample_s")):
        with pytest.raises(ap.InvalidArgument, match=words):
            ap.HostLatency(**kwargs)


def test_host_check_predicts_and_measures_each_plan_in_one_window(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENAPLAN_CACHE_DIR", str(tmp_path))
    m = tiny_model()
    src = quick_host()
    size = ap.plan(m, mode="size", latency=src)
    speed = ap.plan(m, mode="speed", latency=src)
    checks = src.check([size, speed], window_s=0.01)
    assert len(checks) == 2
    for c, p in zip(checks, (size, speed)):
        assert c.predicted_s > 0 and c.measured_s == pytest.approx(sum(op.seconds for op in c.profile))
        assert c.measured_whole_s == c.profile.total_s > 0
        assert [op.variant for op in c.profile] == p.choices
        assert c.error == pytest.approx((c.predicted_s - c.measured_s) / c.measured_s)
        assert c.whole_error == pytest.approx((c.predicted_s - c.measured_whole_s) / c.measured_whole_s)
    other = ap.plan(ap.zoo.load("ds_cnn"))
    with pytest.raises(ap.InvalidArgument, match="one model"):
        src.check([size, other])
    with pytest.raises(ap.InvalidArgument, match="non-empty"):
        src.check([])


def test_cost_model_keys_by_op_type_then_family():
    m = tiny_model()
    kernels = PlanContext.build(m, isa="portable", reference="litert").kernels
    model = ap.CostModel("cortex-m4", cycles_per_mac={"direct": 100.0, "CONV_2D:direct": 1.0,
                                                     "default": 50.0})
    profile = model.profile
    by_type = {k.type: k for k in kernels}
    conv, dw, soft = by_type["CONV_2D"], by_type["DEPTHWISE_CONV_2D"], by_type["SOFTMAX"]
    assert profile.per_mac(conv, conv.variant("direct")) == 1.0           # op type and family
    # a family given bare replaces that family's figures for every op type
    assert profile.per_mac(dw, dw.variant("direct")) == 100.0
    assert profile.per_mac(soft, soft.variant("direct")) == 100.0
    # the rest stays the profile's
    assert profile.per_mac(soft, soft.variant("exp_cache")) == latency.PROFILES["cortex-m4"].cycles_per_mac["SOFTMAX:exp_cache"]
    padded = next(v for v in dw.variants if v.name.startswith("padded_rows") and v.name != "padded_rows_1")
    assert profile.per_mac(dw, padded) == latency.PROFILES["cortex-m4"].per_mac(dw, padded)
    # a depthwise op's own filter size first: the 3x3 code has figures of its own
    assert latency.PROFILES["cortex-m4"]._key(dw, padded) == "DEPTHWISE_CONV_2D:padded_rows@3x3"
    # one output row a band (its input rows padded again for every row) is a family of its own
    assert latency.PROFILES["cortex-m4"]._key(dw, dw.variant("padded_rows_1")) == "DEPTHWISE_CONV_2D:padded_rows_1@3x3"
    # the calibrated profiles: counted instructions times the core's cycles per instruction
    for name, counted in (("cortex-m4", "cortex-m4"), ("cortex-m7", "cortex-m7"), ("cortex-m55", "cortex-m4")):
        p = latency.PROFILES[name]
        cpi = latency._CYCLES_PER_INSTRUCTION[name]
        assert p.cycles_per_mac["CONV_2D:im2col"] == pytest.approx(
            latency._COUNTED["instructions_per_mac"][counted]["CONV_2D:im2col"] * cpi, rel=1e-3)
        assert p.overhead_cycles == pytest.approx(latency._INSTRUCTIONS_PER_OP * cpi)


def test_cost_model_coefficients_can_be_overridden():
    m = tiny_model()
    kernels = PlanContext.build(m, isa="portable", reference="litert").kernels
    slow = ap.CostModel("cortex-m4", clock_hz=84e6).op_times(m, kernels)
    fast = ap.CostModel("cortex-m4").op_times(m, kernels)
    assert slow[0]["direct"] == pytest.approx(2 * fast[0]["direct"])
    with pytest.raises(ap.InvalidArgument, match="unknown cost model"):
        ap.CostModel("cortex-m4", cycles_per_flop=1)


def test_cost_model_counts_outputs_channels_and_taps_beside_macs():
    """A conv's predicted cycles are its MACs, outputs, channels, output taps, pixel taps, window inputs, inputs and weights
    times the calibrated figures of its key, plus the key's per-op figure."""
    kernels = PlanContext.build(tiny_model(), isa="arm-dsp", reference="tflm").kernels
    conv = next(k for k in kernels if k.type == "CONV_2D")
    s = conv.spec
    pixels = s["batches"] * s["output_h"] * s["output_w"]
    taps = s["filter_h"] * s["filter_w"]
    assert latency.output_shape(conv) == (pixels * s["output_c"], s["output_c"],
                                          pixels * s["output_c"] * taps, pixels * taps,
                                          pixels * taps * s["input_c"],
                                          s["batches"] * s["input_h"] * s["input_w"] * s["input_c"],
                                          s["output_c"] * taps * s["input_c"])
    p = latency.PROFILES["cortex-m4"]
    for v in conv.variants:
        key = p._key(conv, v)
        features = (v.macs, *latency.output_shape(conv))
        slopes = (p.cycles_per_mac[key], p.cycles_per_output.get(key, 0.0), p.cycles_per_channel.get(key, 0.0),
                  p.cycles_per_tap.get(key, 0.0), p.cycles_per_pixel_tap.get(key, 0.0),
                  p.cycles_per_window_input.get(key, 0.0), p.cycles_per_input.get(key, 0.0),
                  p.cycles_per_weight.get(key, 0.0))
        work = sum(f * c for f, c in zip(features, slopes))
        want = max(p.overhead_by_key.get(key, p.overhead_cycles) + work, 0.5 * work)
        assert p.cycles(conv, v) == pytest.approx(want + v.scratch_bytes * p.cycles_per_scratch_byte)
    soft = next(k for k in kernels if k.type == "SOFTMAX")
    rows, depth = soft.spec["outer_size"], soft.spec["depth"]
    # a row op: outputs, channels the row's length, one pixel of one tap a row
    assert latency.output_shape(soft) == (rows * depth, depth, rows * depth, rows, rows * depth, rows * depth, 0)
    assert latency.output_shape(next(k for k in kernels if k.type == "RESHAPE")) == (0, 0, 0, 0, 0, 0, 0)


def test_cost_model_keys_rows_other_than_int8_by_their_types():
    """An op row other than int8 takes "<op>(<types>):<family>" first (the int16 SOFTMAX's
    tables, float32 BATCH_MATMUL), then the op's keys; the int8 row keeps the plain keys."""
    from arenaplan.ops import coverage
    p = latency.PROFILES["cortex-m4"]
    expect = {("SOFTMAX", "s8"): "arm-dsp/SOFTMAX:direct", ("SOFTMAX", "s16x8"): "arm-dsp/SOFTMAX(s16x8):direct",
              ("BATCH_MATMUL", "f32"): "arm-dsp/BATCH_MATMUL(f32):direct",
              ("TRANSPOSE_CONV", "s16x8"): "arm-dsp/TRANSPOSE_CONV(s16x8):gather",
              ("LOG_SOFTMAX", "s8"): "arm-dsp/LOG_SOFTMAX:direct"}
    for (op, row), key in expect.items():
        k = PlanContext.build(coverage.probe_models((op, row))()[0], isa="arm-dsp", reference="tflm").kernels[-1]
        assert latency.op_key(k) == (op if row == "s8" else f"{op}({row})")
        assert p._key(k, k.variants[0]) == key
    # a row with no figures of its own falls back to the op's
    k = PlanContext.build(coverage.probe_models(("CONV_2D", "s16x8"))()[0], isa="arm-dsp", reference="tflm").kernels[-1]
    assert p._key(k, k.variants[0]).startswith("arm-dsp/CONV_2D:")


def test_cost_model_transpose_conv_taps_land_inside_the_output():
    """A TRANSPOSE_CONV's pixel taps are the (input pixel, filter tap) pairs that reach an output:
    all of them at stride 2 with a 2x2 filter, fewer where SAME padding cuts the border."""
    from arenaplan.ops import coverage
    k = PlanContext.build(coverage.probe_models(("TRANSPOSE_CONV", "s8"))()[0], isa="portable",
                          reference="tflm").kernels[-1]
    s = dict(k.spec)
    assert (s["input_h"], s["filter_h"], s["stride_h"], s["output_h"], s["pad_h"]) == (4, 3, 2, 8, 0)
    # rows: input row 3 reaches outputs 6, 7 and 8, the last outside: 4 * 3 - 1 pairs an axis
    outputs, channels, taps, pixel_taps, window_inputs, inputs, weights = latency.output_shape(k)
    assert pixel_taps == 11 * 11 and taps == 121 * s["output_c"]
    assert window_inputs == 121 * s["input_c"] * s["output_c"] and inputs == 16 * s["input_c"]
    assert outputs == 64 * s["output_c"] and channels == s["output_c"]
    assert weights == 9 * s["input_c"] * s["output_c"]


def test_cost_model_keys_a_depth_multiplier_above_1_by_the_code_it_runs():
    """A depthwise op of depth multiplier above 1 takes the "[multiplier]" keys (any filter
    size): arm-dsp's direct its own code's, its other variants and the other ISAs the portable
    code's; a multiplier of 1 keeps its ISA's 3x3 keys; an LSTM its own."""
    from arenaplan.model.zoo import GraphBuilder
    p = latency.PROFILES["cortex-m4"]
    for multiplier, isa, variant, key in ((8, "arm-dsp", "direct", "arm-dsp/DEPTHWISE_CONV_2D[multiplier]:direct"),
                                          (8, "arm-dsp", "padded_rows_4", "DEPTHWISE_CONV_2D[multiplier]:padded_rows"),
                                          (8, "portable", "direct", "DEPTHWISE_CONV_2D[multiplier]:direct"),
                                          (1, "arm-dsp", "direct", "arm-dsp/DEPTHWISE_CONV_2D:direct@3x3")):
        g = GraphBuilder("dw", seed=1)
        m = g.build(g.depthwise(g.input((1, 6, 6, 2), scale=0.05), (3, 3), multiplier=multiplier, name="op"))
        k = PlanContext.build(m, isa=isa, reference="tflm").kernels[-1]
        assert p._key(k, k.variant(variant)) == key
    from arenaplan.ops import coverage
    for row, key in (("s8", "arm-dsp/UNIDIRECTIONAL_SEQUENCE_LSTM:direct"),
                     ("s16x8", "arm-dsp/UNIDIRECTIONAL_SEQUENCE_LSTM(s16x8):direct"),
                     ("f32", "arm-dsp/UNIDIRECTIONAL_SEQUENCE_LSTM(f32):direct")):
        k = PlanContext.build(coverage.probe_models(("UNIDIRECTIONAL_SEQUENCE_LSTM", row))()[0], isa="arm-dsp",
                              reference="tflm").kernels[0]
        assert p._key(k, k.variants[0]) == key


def test_cost_model_prices_widened_as_direct_where_it_runs_directs_code():
    """arm-dsp's widened depthwise variants run direct's code on a layer of a clamped range
    (RELU6 here) or one multiplier: the cost models price them there as direct, so a plan
    buys no scratch for them; on a full-range per-channel layer they keep their own figures."""
    from arenaplan.model.zoo import GraphBuilder
    p = latency.PROFILES["cortex-m4"]
    models = {}
    for activation, per_channel, fast in (("RELU", True, True), ("RELU6", True, False), ("RELU", False, False)):
        g = GraphBuilder("dw", seed=1)
        m = models[activation] = g.build(g.depthwise(g.input((1, 6, 6, 8), scale=0.05), (3, 3), name="op",
                                                     activation=activation))
        k = PlanContext.build(m, isa="arm-dsp", reference="tflm").kernels[-1]
        if not per_channel:
            k.spec["requant.per_channel"] = 0
        assert (k.spec["requant.activation_max"] == 127) == (activation == "RELU")
        direct = p.cycles(k, k.variant("direct"))
        for name in ("widened", "widened_pairs"):
            key = p._key(k, k.variant(name))
            assert (key == f"arm-dsp/DEPTHWISE_CONV_2D:{name}@3x3") == fast, (activation, per_channel, key)
            assert (p.cycles(k, k.variant(name)) < direct) == fast
    for activation, widened in (("RELU", True), ("RELU6", False)):
        plan = ap.plan(models[activation], target="cortex-m4", latency="model:cortex-m4", mode="speed")
        assert plan.verify()
        assert any(str(v).startswith("widened") for v in plan.choices) == widened, (activation, plan.choices)
