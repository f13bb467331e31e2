"""Balanced plans, the frontier, several models in one arena."""
from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

import arenaplan as ap
from arenaplan.api import context
from arenaplan.planning.context import PlanContext
from arenaplan.planning.tradeoffs import does_not_fit
from harness import svdf_models
from tiny_models import made_up_table, tiny_model
from conftest import MODEL_NAMES, model_path
from arenaplan.planning.tradeoffs import FrontierPoint


# The host source's brief windows here may well miss a spell of this machine's normal
# speed, which it says in a warning (checked on its own below).
pytestmark = pytest.mark.filterwarnings("ignore:host latency of .* measured while:RuntimeWarning")


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


def test_frontier_svg_steps_through_every_point():
    import xml.etree.ElementTree as ET
    m = ap.load_tflite(model_path("mlperf_tiny_ic_resnet8_int8"))
    # the Cortex-M4's frontier: its arm-dsp im2col kernels make scratch worth buying
    f = ap.frontier(m, target="cortex-m4", latency="model:cortex-m4")
    assert len(f.points) >= 2
    assert f.points[0].latency_s / f.points[-1].latency_s >= 1.3
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


@pytest.mark.parametrize("name", ["mlperf_tiny_ic_resnet8_int8", "mlperf_tiny_kws_dscnn_int8"])
def test_cortex_m4_frontier_is_a_curve(name):
    """On the Cortex-M4 what memory buys is a curve: at least 3 points and 1.3x from the size
    end to the speed end (KWS's pointwise convs: gemm_1x1, im2col16_rows_2 and _4, and
    im2col16w_rows_4 with its weights widened into scratch). bench_cortex_m.py counts the same
    plans under QEMU."""
    f = ap.frontier(ap.load_tflite(model_path(name)), target="cortex-m4", latency="model:cortex-m4")
    assert len(f.points) >= 3, f.table()
    assert f.points[0].latency_s / f.points[-1].latency_s >= 1.3, f.table()
    for p in f.points:
        assert p.plan.verify() and p.plan.isa == "arm-dsp"


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
    ctx = PlanContext.build(m, isa=p.isa, reference=p.reference)   # the plan's own
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
    f = ap.frontier(ap.load_tflite(model_path("mlperf_tiny_ic_resnet8_int8")), target="cortex-m4",
                    latency="model:cortex-m4")
    width = 480
    root = ET.fromstring(f.svg(width=width, height=240))
    ns = "{http://www.w3.org/2000/svg}"
    ticks = [(float(t.get("x")), t.text) for t in root.iter(f"{ns}text") if t.get("class") == "xtick"]
    assert len(ticks) >= 4 and len({s for _, s in ticks}) == len(ticks), ticks
    xs = [x for x, _ in ticks]
    assert xs == sorted(xs) and xs[0] < 0.4 * width and xs[-1] > 0.6 * width
    values = [float(s.replace(",", "")) for _, s in ticks]
    step = values[1] - values[0]
    # round values, evenly spaced, the first within a step of the size end and the last
    # within a step of the speed end
    assert values == sorted(values) and all(abs(b - a - step) < 1e-9 for a, b in zip(values, values[1:]))
    assert values[0] - step <= f.points[0].arena_bytes / 1024 <= values[0] + step
    assert f.points[-1].arena_bytes / 1024 <= values[-1] + step


def test_a_budget_of_one_byte_is_one_byte():
    m = ap.zoo.load("autoencoder")
    with pytest.raises(ap.PlanDoesNotFit) as info:
        ap.plan(m, mode="balanced", budget=1, latency="model:cortex-m7")
    assert "the budget of 1 byte is 767 bytes short" in str(info.value)
    with pytest.raises(ap.PlanDoesNotFit) as info:
        ap.frontier(m, latency="model:cortex-m7").at(1)
    assert "the budget of 1 byte is 767 bytes short" in str(info.value)
