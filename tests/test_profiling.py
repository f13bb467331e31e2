"""How host timings are summarised and interleaved (arenaplan.runtime.profiling).

Synthetic rows and stand-in interpreters: these tests check the arithmetic and the
order of work, never how fast anything runs.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import arenaplan as ap
from arenaplan.latency import speed_probe
from arenaplan import _core
from arenaplan.runtime.profiling import Timings, _settled, profile_rounds, profile_together, summarise


def rows_of(ops, whole, empty) -> np.ndarray:
    """Raw Graph.profile rows: per repeat the ops' seconds, the whole run, the empty call."""
    return np.column_stack([np.asarray(ops, dtype=float), whole, empty])


def test_summarise_takes_fastest_and_median_net_of_the_timer():
    rows = rows_of([[5.0, 2.0], [4.0, 3.0], [9.0, 2.5]], whole=[8.0, 7.5, 12.0], empty=[1.0, 0.5, 2.0])
    s = summarise(rows)
    assert s.timer_s == 0.5 and s.repeats == 3              # the fastest empty call
    np.testing.assert_allclose(s.op_s, [3.5, 1.5])          # fewer than 100 repeats: the fastest
    np.testing.assert_allclose(s.op_median_s, [4.5, 2.0], rtol=0.005)   # median - timer
    assert s.total_s == pytest.approx(7.0)
    assert s.total_median_s == pytest.approx(7.5, rel=0.005)


def test_summarise_clamps_figures_below_the_timer_to_zero():
    # an aliased RESHAPE costs less than the clock's jitter
    s = summarise(rows_of([[0.9], [1.2]], whole=[1.1, 1.0], empty=[1.0, 1.1]))
    assert s.op_s[0] == 0.0 and s.total_s == 0.0
    assert s.op_median_s[0] == 0.0      # the median of two is the lower one here


@pytest.mark.parametrize("shape", [(0, 4), (3, 1), (5,)])
def test_summarise_rejects_rows_of_the_wrong_shape(shape):
    with pytest.raises(ValueError, match="profile rows"):
        summarise(np.zeros(shape))


def test_timings_take_the_first_percentile_of_all_repeats():
    t = Timings(3)
    # 1,000 repeats of one op: ten odd fast ones, then the op's own cost (2 us) on 490,
    # the rest slowed by the load
    rng = np.random.default_rng(0)
    op = np.concatenate([[1e-6] * 5, [1.5e-6] * 5, [2e-6] * 490, rng.uniform(3e-6, 4e-6, 500)])
    rng.shuffle(op)
    for chunk in np.split(np.arange(1000), 10):        # added round by round
        t.add(rows_of(op[chunk, None], whole=op[chunk] + 1e-7, empty=np.full(len(chunk), 3e-8)))
    s = t.summary()
    assert t.repeats == 1000 and s.timer_s == pytest.approx(3e-8)
    # the 10th fastest of 1,000 is one of the odd fast ones: the 1st percentile
    assert s.op_s[0] == pytest.approx(1.5e-6 - 3e-8, rel=0.005)
    assert s.total_s == pytest.approx(1.6e-6 - 3e-8, rel=0.005)
    assert s.op_median_s[0] + s.timer_s == pytest.approx(2e-6, rel=0.005)
    np.testing.assert_allclose(t.quantile(0.0), [1e-6, 1.1e-6, 3e-8])
    with pytest.raises(ValueError, match="shape"):
        t.add(np.zeros((2, 4)))
    with pytest.raises(ValueError, match="no repeats"):
        Timings(3).quantile(0.5)


def test_settled_compares_now_with_half_the_time_ago():
    improving = [(0.1, [10.0]), (0.2, [9.0]), (0.3, [8.0]), (0.4, [7.0])]
    assert not _settled(improving, 0.01)          # 9 -> 7 since t = 0.2
    flat = [(0.1, [10.0]), (0.2, [8.0]), (0.3, [8.0]), (0.4, [7.95])]
    assert _settled(flat, 0.01)                   # 8 -> 7.95: under 1 %
    assert not _settled(flat, 0.001)
    # every figure must have settled
    assert not _settled([(0.1, [5.0, 10.0]), (0.2, [5.0, 10.0]), (0.4, [5.0, 8.0])], 0.01)
    # the first round is the reference until half the time lies behind it
    assert _settled([(0.3, [5.0]), (0.4, [5.0])], 0.01)
    # a change within the clock's resolution is no change
    assert _settled([(0.1, [2.0e-7]), (0.2, [1.8e-7])], 0.01)
    assert not _settled([(0.1, [2.0e-6]), (0.2, [1.8e-6])], 0.01)


def test_profile_rounds_accumulates_every_interpreter():
    its = [ap.Interpreter(ap.plan(ap.zoo.load("ds_cnn"))), ap.Interpreter(ap.plan(ap.zoo.load("autoencoder")))]
    ticks = []
    x = [np.zeros((1, 49, 10, 1), np.int8), None]
    out = profile_rounds(its, window_s=0.0, min_rounds=3, call_s=0.001, x=x,
                         progress=lambda done, expected: ticks.append((done, expected)))
    assert [t.width for t in out] == [len(its[0].plan.choices) + 2, len(its[1].plan.choices) + 2]
    # one repeat count per round for all of them
    assert out[0].repeats == out[1].repeats and out[0].repeats % 3 == 0
    assert [d for d, _ in ticks] == [1, 2, 3] and ticks[-1] == (3, 3)
    assert all(t.summary().total_s > 0 for t in out)


def test_profile_together_runs_every_graph_each_repeat():
    a = ap.Interpreter(ap.plan(ap.zoo.load("ds_cnn")))
    b = ap.Interpreter(ap.plan(ap.zoo.load("autoencoder"), mode="speed"))
    got = profile_together([a, b, a], 4)
    assert [r.shape for r in got] == [(4, a._graph.node_count + 2), (4, b._graph.node_count + 2),
                                      (4, a._graph.node_count + 2)]
    assert all((r > 0).all() for r in got)
    with pytest.raises(TypeError, match="graph, pools"):
        _core.Graph.profile_together([(a._graph,)], 1)
    with pytest.raises(ValueError, match="pool 0 buffer has 1 bytes"):
        _core.Graph.profile_together([a._profile_handle(), (b._graph, [np.zeros(1, np.uint8)])], 1)
    with pytest.raises(ValueError, match="1 to 256 graphs"):
        _core.Graph.profile_together([], 1)
    with pytest.raises(ValueError, match="repeats"):
        _core.Graph.profile_together([a._profile_handle()], 0)


def test_profile_rounds_waits_for_ready_until_the_limit():
    its = [ap.Interpreter(ap.plan(ap.zoo.load("autoencoder")))]
    asked = []

    def ready(timings):
        asked.append(timings[0].repeats)
        return len(asked) >= 4

    out = profile_rounds(its, window_s=0.0, min_rounds=2, max_window_s=60.0, ready=ready)
    assert len(asked) == 4 and out[0].repeats == asked[-1]
    assert asked == sorted(set(asked))                 # asked once a round, from round 2 on
    # never ready: the limit (here the window itself) ends the rounds
    ticks = []
    profile_rounds(its, window_s=0.0, min_rounds=2, max_window_s=0.0, ready=lambda t: False,
                   progress=lambda done, expected: ticks.append(done))
    assert ticks == [1, 2]


def test_speed_probe_tells_normal_speed_from_a_slow_spell():
    assert speed_probe.at_normal_speed(1.0, math.inf)          # no record yet
    assert speed_probe.at_normal_speed(1.05, 1.0, tolerance=0.1)
    assert not speed_probe.at_normal_speed(1.3, 1.0, tolerance=0.1)
    # its speed is the lower quartile of its whole runs, net of the timer
    t = Timings(3).add(rows_of(np.full((100, 1), 1e-6), whole=np.linspace(1e-6, 2e-6, 100),
                               empty=np.full(100, 1e-8)))
    assert speed_probe.speed_of(t) == pytest.approx(1.25e-6 - 1e-8, rel=0.01)
    it, x = speed_probe.probe()
    again, x2 = speed_probe.probe()
    np.testing.assert_array_equal(x, x2)
    np.testing.assert_array_equal(it.run(x), again.run(x2))
    assert it.plan.choices == again.plan.choices


def test_profile_rounds_of_nothing():
    assert profile_rounds([], window_s=1.0) == []


def test_interpreter_profile_reports_ops_and_the_whole_run():
    p = ap.plan(ap.zoo.load("ds_cnn"), mode="speed")
    prof = ap.Interpreter(p).profile(repeats=5)
    assert isinstance(prof, ap.Profile) and len(prof) == len(p.choices)
    assert prof.repeats == 5 and prof.timer_s > 0
    assert 0 < prof.total_s <= prof.total_median_s
    assert all(0 <= op.seconds <= op.median_s for op in prof)
    assert prof.ops_total_s == pytest.approx(sum(op.seconds for op in prof))
    with pytest.raises(ap.InvalidArgument, match="at most 100000"):
        ap.Interpreter(p).profile(repeats=100001)


def test_graph_profile_rows_hold_ops_whole_run_and_empty_call():
    p = ap.plan(ap.zoo.load("ds_cnn"))
    it = ap.Interpreter(p)
    rows = it._graph.profile(it._pools, 4)
    assert len(rows) == 4 and all(len(r) == it._graph.node_count + 2 for r in rows)
    assert all(t >= 0 for r in rows for t in r)
