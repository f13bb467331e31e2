"""ap.sweep: every combination planned, the same records serially, on processes and on Dask."""
from __future__ import annotations

import concurrent.futures

import pytest

import arenaplan as ap
from conftest import MLPERF_TINY, model_path

TARGETS = [None, "cortex-m4", "cortex-m7"]
BUDGETS = [None, "16KiB", "64KiB", "128KiB"]


def _models():
    return [str(model_path(name)) for name in MLPERF_TINY]


def _sweep(executor=None):
    return ap.sweep(_models(), targets=TARGETS, budgets=BUDGETS, modes=["size", "balanced"],
                    latency="model:cortex-m4", executor=executor)


@pytest.fixture(scope="module")
def serial():
    return _sweep()


def test_every_combination_is_a_record_and_errors_are_records(serial):
    assert len(serial) == len(MLPERF_TINY) * len(TARGETS) * len(BUDGETS) * 2
    fitted = [r for r in serial if r.error is None]
    refused = [r for r in serial if r.error is not None]
    assert fitted and refused
    # 16 KiB holds no MLPerf Tiny model but KWS (16,000 B) and the autoencoder: those that do not fit say so
    assert all("PlanDoesNotFit" in r.error or "needs a budget" in r.error for r in refused)
    for r in fitted:
        assert r.arena_bytes == sum(r.pool_bytes.values())
        if r.budget is not None and r.mode == "balanced" and r.target is None:
            assert r.arena_bytes <= r.budget
    # each record is the plan that ap.plan makes for its combination
    r = next(r for r in fitted if r.mode == "balanced" and r.target == "cortex-m7" and r.budget == 65536)
    p = ap.plan(ap.load_tflite(model_path(r.model)), mode="balanced", budget=r.budget,
                target="cortex-m7", latency="model:cortex-m4")
    assert p.verify() and (p.arena_bytes, p.choices, p.latency_s) == (r.arena_bytes, r.choices, r.latency_s)


def test_a_process_pool_gives_the_same_records(serial):
    with concurrent.futures.ProcessPoolExecutor(2) as pool:
        assert _sweep(pool) == serial


def test_a_dask_cluster_of_two_workers_gives_the_same_records(serial):
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        assert _sweep(client.get_executor()) == serial


def test_the_frontier_mode_lists_its_points_and_a_table_comes_out():
    r = ap.sweep(["resnet8"], modes=["frontier"], budgets=[None, "52KiB"], latency="model:cortex-m4")
    assert [x.budget for x in r] == [None, 52 * 1024]
    assert all(x.frontier and x.frontier[0][0] <= x.arena_bytes for x in r)
    pandas = pytest.importorskip("pandas")
    frame = r.to_frame()
    assert isinstance(frame, pandas.DataFrame) and list(frame["mode"]) == ["frontier", "frontier"]


@pytest.mark.parametrize("kwargs, words", [
    (dict(models=[]), "at least one model"),
    (dict(models=["resnet8"], modes=["fastest"]), "unknown sweep mode 'fastest'"),
    (dict(models=["resnet8"], targets=["cortex-a53"]), "unknown target 'cortex-a53'"),
    (dict(models=["resnet8"], budgets=["lots"]), "cannot read 'lots'"),
])
def test_bad_sweeps_fail_before_any_work(kwargs, words):
    with pytest.raises(ap.InvalidArgument, match=words):
        ap.sweep(**kwargs)
