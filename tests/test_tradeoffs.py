"""Latency sources, balanced plans, the frontier, several models in one arena."""
from __future__ import annotations

import dataclasses
import itertools
import json

import numpy as np
import pytest

import arenaplan as ap
from arenaplan.latency import sources as latency
from arenaplan.api import context
from arenaplan.cli import main
from arenaplan.planning.context import PlanContext
from arenaplan.planning.tradeoffs import does_not_fit
from arenaplan.model.zoo import GraphBuilder
import svdf_models
from conftest import MODEL_NAMES, model_path
from arenaplan.planning.tradeoffs import FrontierPoint


# The host source's brief windows here may well miss a spell of this machine's normal
# speed, which it says in a warning (checked on its own below).
pytestmark = pytest.mark.filterwarnings("ignore:host latency of .* measured while:RuntimeWarning")


def tiny_model() -> ap.Model:
    """conv 3x3 -> depthwise -> pointwise -> pool -> reshape -> fc -> softmax: few enough
    variant combinations to enumerate every plan."""
    g = GraphBuilder("tiny", seed=3)
    x = g.input((1, 12, 12, 4), scale=0.05)
    x = g.conv2d(x, 8, (3, 3), name="conv")
    x = g.depthwise(x, (3, 3), name="dw")
    x = g.conv2d(x, 8, (1, 1), name="pw")
    x = g.avgpool(x, (12, 12))
    x = g.reshape(x, (1, 8))
    x = g.fully_connected(x, 4)
    return g.build(g.softmax(x))


def made_up_table(model: ap.Model, seed: int) -> list:
    """Random latencies, faster for more scratch most of the time (but not always)."""
    rng = np.random.default_rng(seed)
    rows = []
    for k in PlanContext.build(model).kernels:
        for i, v in enumerate(k.variants):
            rows.append({"op": k.index, "variant": v.name,
                         "seconds": float(rng.uniform(1, 10) / (1 + 0.5 * i))})
    return rows


def every_plan(ctx: PlanContext):
    for combo in itertools.product(*[k.variants for k in ctx.kernels]):
        yield ctx.make(list(combo), "balanced", with_greedy=False)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_balanced_is_optimal_against_brute_force(seed):
    m = tiny_model()
    table = made_up_table(m, seed)
    ctx = context(m, latency=table)
    plans = list(every_plan(ctx))
    budgets = sorted({p.arena_bytes for p in plans})
    for b in budgets:
        best = min(p.latency_s for p in plans if p.arena_bytes <= b)
        got = ap.plan(m, mode="balanced", budget=b, latency=table)
        assert got.verify() and got.arena_bytes <= b
        assert got.latency_s == pytest.approx(best, rel=1e-12), b


@pytest.mark.parametrize("seed", [0, 4])
def test_frontier_is_the_pareto_set_of_every_plan(seed):
    m = tiny_model()
    table = made_up_table(m, seed)
    f = ap.frontier(m, latency=table)
    plans = list(every_plan(context(m, latency=table)))
    pareto = []
    for p in sorted(plans, key=lambda p: (p.arena_bytes, p.latency_s)):
        if not pareto or p.latency_s < pareto[-1][1] - 1e-15:
            pareto.append((p.arena_bytes, p.latency_s))
    assert [(p.arena_bytes, pytest.approx(p.latency_s)) for p in f.points] == pareto


@pytest.mark.parametrize("name", ["mlperf_tiny_ic_resnet8_int8", "mlperf_tiny_vww_mobilenetv1_025_int8",
                                  "mlperf_tiny_kws_dscnn_int8"])
@pytest.mark.parametrize("latency", ["model:cortex-m4", "model:cortex-m7"])
def test_frontier_invariants(name, latency):
    m = ap.load_tflite(model_path(name))
    f = ap.frontier(m, latency=latency)
    size = ap.plan(m, mode="size", latency=latency)
    speed = ap.plan(m, mode="speed", latency=latency)
    assert f.points[0].arena_bytes == size.arena_bytes
    assert f.points[-1].latency_s == pytest.approx(speed.latency_s)
    assert f.points[-1].arena_bytes <= speed.arena_bytes
    for a, b in zip(f.points, f.points[1:]):
        assert a.arena_bytes < b.arena_bytes and a.latency_s > b.latency_s
    for p in f.points:
        assert p.plan.verify() and p.plan.arena_bytes == p.arena_bytes
    assert f.at(f.points[-1].arena_bytes + 1000) is f.points[-1].plan
    g = f.gain(f.points[-1].arena_bytes - f.points[0].arena_bytes)
    assert g.latency_saved_s == pytest.approx(f.points[0].latency_s - f.points[-1].latency_s)
    assert "Pareto" in f.table() and "<table>" in f._repr_html_()


def test_frontier_plans_run_bit_exactly():
    name = "mlperf_tiny_ic_resnet8_int8"
    m = ap.load_tflite(model_path(name))
    f = ap.frontier(m, latency="model:cortex-m4")
    x = np.random.default_rng(5).integers(-128, 128, size=(1, 32, 32, 3), dtype=np.int8)
    outs = [ap.Interpreter(p.plan).run(x) for p in f.points]
    litert = pytest.importorskip("ai_edge_litert.interpreter")
    it = litert.Interpreter(model_path=str(model_path(name)),
                            experimental_op_resolver_type=litert.OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    want = it.get_tensor(it.get_output_details()[0]["index"])
    for out in outs:
        np.testing.assert_array_equal(out, want)


def test_gain_names_the_ops_that_change():
    m = ap.load_tflite(model_path("mlperf_tiny_ic_resnet8_int8"))
    f = ap.frontier(m, latency="model:cortex-m4")
    g = f.gain("16KiB")
    assert g.extra_bytes == 16384 and g.latency_saved_s > 0
    assert g.changes and all(len(c) == 4 for c in g.changes)
    assert "more bytes" in str(g)


def test_several_models_share_the_max_arena():
    models = [ap.load_tflite(model_path(n)) for n in
              ("mlperf_tiny_kws_dscnn_int8", "mlperf_tiny_ic_resnet8_int8")]
    latency = "model:cortex-m4"
    f = ap.frontier(models, latency=latency)
    for p in f.points:
        assert p.arena_bytes == max(q.arena_bytes for q in p.plan.plans)
        assert p.latency_s == pytest.approx(sum(q.latency_s for q in p.plan.plans))
        assert p.plan.verify()
    mp = ap.plan(models, budget="64KiB", latency=latency)
    assert mp.arena_bytes <= 65536
    alone = [ap.plan(m, mode="balanced", budget="64KiB", latency=latency) for m in models]
    assert mp.latency_s == pytest.approx(sum(p.latency_s for p in alone))


def test_frontier_reports_state_apart_from_the_arena():
    m = ap.load_tflite(model_path("tflm_keyword_scrambled_int8"))
    f = ap.frontier(m, latency="model:cortex-m4")
    assert all(p.state_bytes == 10240 and p.arena_bytes < 10240 for p in f.points)
    assert "plus 10,240 bytes of persistent state outside the arena" in f.table()
    assert all(r["state_bytes"] == 10240 for r in f.rows())
    both = ap.frontier([m, svdf_models.svdf_chain()], latency="model:cortex-m4")
    assert both.points[0].state_bytes == 10240 + 240      # each model keeps its own state
    assert both.points[0].arena_bytes == max(q.arena_bytes for q in both.points[0].plan.plans)


def test_budget_below_the_size_plan_says_by_how_much():
    m = ap.zoo.load("ds_cnn")
    with pytest.raises(ap.PlanDoesNotFit) as info:
        ap.plan(m, mode="balanced", budget=10000, latency="model:cortex-m4")
    e = info.value
    assert e.needed == 16000 and e.available == 10000 and e.short_by == 6000
    assert "6,000 bytes short" in str(e)


def test_speed_plan_over_budget_names_the_ops():
    m = ap.load_tflite(model_path("mlperf_tiny_ic_resnet8_int8"))
    # a cost model in which the whole-image im2col is the fastest conv (its scratch is big)
    latency = ap.CostModel("cortex-m4", cycles_per_mac={"CONV_2D:im2col": 3.0})
    with pytest.raises(ap.PlanDoesNotFit) as info:
        ap.plan(m, mode="speed", budget="52KiB", latency=latency)
    e = info.value
    assert e.available == 52 * 1024 and e.needed > e.available
    assert "op " in str(e) and "scratch" in str(e)


@pytest.mark.parametrize("budget, words", [(-5, ">= 0"), (1.5, "whole"), ("lots", "cannot read")])
def test_bad_budgets(budget, words):
    with pytest.raises(ap.InvalidArgument, match=words):
        ap.plan(ap.zoo.load("ds_cnn"), mode="balanced", budget=budget, latency="model:cortex-m4")


def test_budget_strings_are_accepted():
    p = ap.plan(ap.zoo.load("ds_cnn"), mode="balanced", budget="96KiB", latency="model:cortex-m4")
    assert p.arena_bytes <= 96 * 1024 and p.verify()


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
    times = src.op_times(m, PlanContext.build(m).kernels)
    assert times[0]["direct"] == pytest.approx(0.001)
    ctx = PlanContext.build(m)
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
    kernels = PlanContext.build(m).kernels
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
    kernels = PlanContext.build(m).kernels
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
    kernels = PlanContext.build(m).kernels
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
    kernels = PlanContext.build(m).kernels
    src = quick_host()
    old = quick_host()
    old._fingerprint = src._fingerprint.replace(latency._METHOD, "in-graph")   # medians, before
    (tmp_path / "host_latency.json").write_text(json.dumps(
        {old._key(k, v): 1.0 for k in kernels for v in k.variants}))
    assert all(t < 1.0 for op in src.op_times(m, kernels) for t in op.values())


def test_host_latency_measures_ops_one_by_one_when_the_model_cannot_run():
    m = tiny_model()
    kernels = PlanContext.build(m).kernels
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
    kernels = PlanContext.build(m).kernels
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
    padded = next(v for v in dw.variants if v.name.startswith("padded_rows"))
    assert profile.per_mac(dw, padded) == latency.PROFILES["cortex-m4"].cycles_per_mac["DEPTHWISE_CONV_2D:padded_rows"]
    # the calibrated profiles: counted instructions times the core's cycles per instruction
    for name, counted in (("cortex-m4", "cortex-m4"), ("cortex-m7", "cortex-m7"), ("cortex-m55", "cortex-m4")):
        p = latency.PROFILES[name]
        cpi = latency._CYCLES_PER_INSTRUCTION[name]
        assert p.cycles_per_mac["CONV_2D:im2col"] == pytest.approx(
            latency._INSTRUCTIONS_PER_MAC[counted]["CONV_2D:im2col"] * cpi, rel=1e-3)
        assert p.overhead_cycles == pytest.approx(latency._INSTRUCTIONS_PER_OP * cpi)


def test_cost_model_coefficients_can_be_overridden():
    m = tiny_model()
    kernels = PlanContext.build(m).kernels
    slow = ap.CostModel("cortex-m4", clock_hz=84e6).op_times(m, kernels)
    fast = ap.CostModel("cortex-m4").op_times(m, kernels)
    assert slow[0]["direct"] == pytest.approx(2 * fast[0]["direct"])
    with pytest.raises(ap.InvalidArgument, match="unknown cost model"):
        ap.CostModel("cortex-m4", cycles_per_flop=1)


def test_cli_tradeoffs(capsys, tmp_path):
    assert main(["tradeoffs", "--latency", "model:cortex-m4"]) == 0
    out = capsys.readouterr().out
    assert "Pareto" in out and "speed end" in out
    assert main(["tradeoffs", "resnet8", "--latency", "model:cortex-m7", "--budget", "64KiB", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["points"] and data["budget"]["arena_bytes"] <= 65536
    assert main(["tradeoffs", "ds_cnn", "--latency", "model:cortex-m4", "--budget", "1KiB"]) == 2
    assert "short" in capsys.readouterr().err


def test_cli_tradeoffs_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "f.png"
    assert main(["tradeoffs", "resnet8", "--latency", "model:cortex-m4", "--plot", str(out)]) == 0
    import matplotlib.image
    pixels = matplotlib.image.imread(out)
    assert pixels.shape[:2] == (480, 768)                  # the plot's default size_px
    colours = {tuple(px) for px in pixels.reshape(-1, pixels.shape[2])[::7]}
    assert len(colours) > 10                               # axes, curve, labels: not a blank image


def test_frontier_svg_steps_through_every_point():
    import xml.etree.ElementTree as ET
    m = ap.load_tflite(model_path("mlperf_tiny_ic_resnet8_int8"))
    f = ap.frontier(m, latency="model:cortex-m7")
    assert len(f.points) >= 3
    for p in f.points:
        assert p.plan.verify()
    root = ET.fromstring(f.svg(width=400, height=200))
    ns = "{http://www.w3.org/2000/svg}"
    dots = list(root.iter(f"{ns}circle"))
    assert [d.find(f"{ns}title").text.split(" B")[0] for d in dots] == [f"{p.arena_bytes:,}" for p in f.points]
    line = [tuple(map(float, xy.split(","))) for xy in root.find(f"{ns}polyline").get("points").split()]
    assert len(line) == 2 * len(f.points)
    xs, ys = [x for x, _ in line], [y for _, y in line]
    assert xs == sorted(xs) and all(0 <= x <= 400 for x in xs) and all(0 <= y <= 200 for y in ys)
    assert ys == sorted(ys)   # latency falls (the SVG's y grows downward) as bytes grow
    assert "<svg" in f._repr_html_()
    with pytest.raises(ap.InvalidArgument, match="width >= 160"):
        f.svg(width=10)


@pytest.mark.parametrize("mode", ["size", "speed"])
@pytest.mark.parametrize("budget", [55295, 40000, 0])
def test_budget_below_the_live_bytes_names_the_peak_op_not_fragmentation(mode, budget):
    m = ap.load_tflite(model_path("mlperf_tiny_vww_mobilenetv1_025_int8"))
    with pytest.raises(ap.PlanDoesNotFit) as info:
        ap.plan(m, mode=mode, budget=budget, latency="model:cortex-m7")
    e, text = info.value, str(info.value)
    assert e.op == 2 and e.available == budget
    assert "fragmentation" not in text
    assert f"at op 2 (CONV_2D) 55,296 bytes of activations are live at once, {55296 - budget:,} more" in text


def test_fragmentation_is_said_only_when_every_op_fits():
    m = ap.load_tflite(model_path("mlperf_tiny_kws_dscnn_int8"))
    p = ap.plan(m)
    assert p.verify()
    ctx = PlanContext.build(m)
    # a budget at the live bytes but below the plan's arena (as a fragmented plan would be)
    e = does_not_fit(ctx, dataclasses.replace(p, arena_bytes=p.lower_bound_bytes + 16), p.lower_bound_bytes)
    assert "fragmentation" in str(e) and f"at most {p.lower_bound_bytes:,} bytes live at once" in str(e)


# --- the frontier's table and plots ----------------------------------------------------------
FRONTIER_MODELS = [n for n in MODEL_NAMES if n != "tflm_audio_preprocessor_int8"]   # custom ops


def _change_cells(table: str) -> list:
    rows = table.splitlines()[2:]
    return [line[line.index("x  ") + 3:] if "x  " in line else "" for line in rows]


@pytest.mark.parametrize("cost", ["model:cortex-m4", "model:cortex-m7"])
@pytest.mark.parametrize("name", FRONTIER_MODELS)
def test_frontier_table_says_what_changes_at_every_point(name, cost):
    f = ap.frontier(ap.load_tflite(model_path(name)), latency=cost)
    cells = _change_cells(f.table())
    assert len(cells) == len(f.points) and all(c.strip() for c in cells), f.table()
    assert cells[0] == "(size plan)"
    for r in f.rows()[1:]:
        assert r["changes"] or r["what"].startswith("placement only"), r


@pytest.mark.parametrize("cost", ["model:cortex-m4", "model:cortex-m7"])
@pytest.mark.parametrize("names", [("mlperf_tiny_kws_dscnn_int8", "mlperf_tiny_vww_mobilenetv1_025_int8"),
                                   ("mlperf_tiny_ic_resnet8_int8", "mlperf_tiny_vww_mobilenetv1_025_int8")])
def test_shared_arena_frontier_names_the_model_whose_op_changes(names, cost):
    models = [ap.load_tflite(model_path(n)) for n in names]
    f = ap.frontier(models, latency=cost)
    cells = _change_cells(f.table())
    assert all(c.strip() for c in cells), f.table()
    for r in f.rows()[1:]:
        assert r["changes"] and all(c.split(":")[0] in names for c in r["changes"]), r


def test_frontier_table_says_placement_only_when_no_variant_changes():
    m = ap.load_tflite(model_path("tflm_keyword_scrambled_int8"))
    t = ap.targets.get("cortex-m7")
    a = ap.plan(m, target=t, latency="model:cortex-m7")
    b = ap.plan(m, target=t.with_pool("dtcm", capacity=a.state_bytes + a.arena_bytes - 1),
                latency="model:cortex-m7")
    assert a.choices == b.choices and a.pool_bytes != b.pool_bytes
    f = ap.Frontier([FrontierPoint(a.arena_bytes, a.latency_s, a), FrontierPoint(b.arena_bytes, 0.5 * b.latency_s, b)],
                    "kw", "test")
    cell = _change_cells(f.table())[1]
    assert cell.startswith("placement only") and "dtcm 288->192 B" in cell and "sram 0->96 B" in cell


@pytest.mark.parametrize("name, cost", [("mlperf_tiny_ic_resnet8_int8", "model:cortex-m4"),
                                        ("mlperf_tiny_ic_resnet8_int8", "model:cortex-m7"),
                                        ("mlperf_tiny_ad_autoencoder_int8", "model:cortex-m7")])
def test_frontier_plot_has_labelled_x_ticks_across_its_range(tmp_path, name, cost):
    pytest.importorskip("matplotlib")
    import matplotlib.image
    f = ap.frontier(ap.load_tflite(model_path(name)), latency=cost)
    path = tmp_path / "f.png"
    fig = f.plot(str(path), size_px=(640, 400))
    ax = fig.axes[0]
    lo, hi = ax.get_xlim()
    labelled = [(t.get_position()[0], t.get_text()) for t in ax.get_xticklabels() if t.get_text()]
    assert len(labelled) >= 4 and len({s for _, s in labelled}) == len(labelled), labelled
    xs = [x for x, _ in labelled]
    assert all(lo - 1e-9 <= x <= hi + 1e-9 for x in xs)
    assert xs[0] - lo < 0.3 * (hi - lo) and hi - xs[-1] < 0.3 * (hi - lo)   # spread across the axis
    assert all(abs(float(s.replace(",", "")) - x) < 1e-6 * max(1.0, x) for x, s in labelled)   # KiB
    png = matplotlib.image.imread(str(path))
    assert png.shape[:2] == (400, 640)
    colours = np.unique(png.reshape(-1, png.shape[-1]), axis=0)
    assert len(colours) > 1


def test_frontier_svg_labels_its_x_axis_across_the_range():
    import xml.etree.ElementTree as ET
    f = ap.frontier(ap.load_tflite(model_path("mlperf_tiny_ic_resnet8_int8")), latency="model:cortex-m4")
    width = 480
    root = ET.fromstring(f.svg(width=width, height=240))
    ns = "{http://www.w3.org/2000/svg}"
    ticks = [(float(t.get("x")), t.text) for t in root.iter(f"{ns}text") if t.get("class") == "xtick"]
    assert len(ticks) >= 4 and len({s for _, s in ticks}) == len(ticks), ticks
    xs = [x for x, _ in ticks]
    assert xs == sorted(xs) and xs[0] < 0.4 * width and xs[-1] > 0.6 * width
    values = [float(s) for _, s in ticks]
    assert values == sorted(values) and values[0] <= f.points[0].arena_bytes / 1024 <= values[-1]


def test_a_budget_of_one_byte_is_one_byte():
    m = ap.zoo.load("autoencoder")
    with pytest.raises(ap.PlanDoesNotFit) as info:
        ap.plan(m, mode="balanced", budget=1, latency="model:cortex-m7")
    assert "the budget of 1 byte is 767 bytes short" in str(info.value)
    with pytest.raises(ap.PlanDoesNotFit) as info:
        ap.frontier(m, latency="model:cortex-m7").at(1)
    assert "the budget of 1 byte is 767 bytes short" in str(info.value)
