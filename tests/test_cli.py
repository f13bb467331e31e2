"""The command line: arenaplan plan, tradeoffs, run and the errors it prints."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import arenaplan as ap
from arenaplan.cli import main, sweep_command
from conftest import model_path


def test_plan_builtin_model(capsys):
    assert main(["plan"]) == 0
    out = capsys.readouterr().out
    assert "ds_cnn" in out and "lower bound" in out and "TFLM greedy" in out


def test_plan_tflite_json(capsys):
    path = model_path("mlperf_tiny_vww_mobilenetv1_025_int8")
    assert main(["plan", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["greedy_size_bytes"] == 73728
    assert data["arena_bytes"] == data["lower_bound_bytes"] == 55296
    assert len(data["live_bytes"]) == 31


def test_stateful_model_plan_and_export(capsys, tmp_path):
    path = str(model_path("tflm_keyword_scrambled_int8"))
    assert main(["plan", path, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["state_bytes"] == 10240 and data["arena_bytes"] == 288 and len(data["state_buffers"]) == 7
    assert main(["export", path, "--section", "state=.sram2", "--name", "kw", "-o", str(tmp_path)]) == 0
    assert "state 10,240 B (persistent)" in capsys.readouterr().out
    assert 'KW_SECTION(".sram2")' in (tmp_path / "kw.c").read_text()


def test_plan_with_strategy(capsys):
    # the strategy changes the placement: TFLite Micro's greedy planner needs 73,728 B for
    # VWW, where auto reaches the live-bytes bound of 55,296 B
    vww = str(model_path("mlperf_tiny_vww_mobilenetv1_025_int8"))
    figures = {}
    for strategy in ("greedy_size", "auto"):
        assert main(["plan", vww, "--strategy", strategy, "--json"]) == 0
        d = json.loads(capsys.readouterr().out)
        figures[strategy] = (d["arena_bytes"], d["strategy"])
    assert figures["greedy_size"] == (73728, "greedy_size")
    assert figures["auto"][0] == 55296


def test_bad_model_path_is_a_clear_error(capsys, tmp_path):
    assert main(["plan", str(tmp_path / "missing.tflite")]) == 2
    err = capsys.readouterr().err
    assert "missing.tflite" in err and "error" in err


def test_console_script_runs():
    done = subprocess.run([sys.executable, "-m", "arenaplan.cli", "plan", "autoencoder"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "autoencoder" in done.stdout


def test_plan_and_tradeoffs_over_a_target(capsys):
    path = str(model_path("tflm_keyword_scrambled_int8"))
    assert main(["plan", path, "--target", "cortex-m7", "--state-pool", "sram", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["target"]["name"] == "cortex-m7" and data["state_pool"] == "sram"
    assert data["ram_bytes"] == data["arena_bytes"] + data["state_bytes"] == 288 + 10240
    assert set(data["pool_bytes"]) == {"dtcm", "sram", "stack"}
    # --json prints the plan file's record (plus derived figures): it loads back as a plan
    again = ap.Plan.from_json(json.dumps(data))
    assert again.verify() and again.pool_bytes == data["pool_bytes"]
    assert main(["plan", path, "--target", "cortex-m7"]) == 0
    out = capsys.readouterr().out
    assert "in pool 'dtcm'" in out and "dtcm                    288 B + state 10,240 B of 131,072 B" in out
    assert main(["tradeoffs", "--target", "cortex-m4", "--latency", "model:cortex-m4"]) == 0
    assert "Pareto points" in capsys.readouterr().out
    assert main(["plan", "--io-pool", "sram"]) == 2
    assert "give --target too" in capsys.readouterr().err
    assert main(["plan", path, "--target", "cortex-m7", "--state-pool", "stack"]) == 2
    assert "needs a workspace pool" in capsys.readouterr().err


def test_run_prints_and_saves_the_outputs(capsys, tmp_path):
    import numpy as np
    import arenaplan as ap
    from arenaplan.cli.run_model import model_inputs
    out = tmp_path / "y.npy"
    assert main(["run", "--output", str(out), "--seed", "3"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("ds_cnn: 1 run(s), mode size, arena 16,000 B") and "argmax" in text
    m = ap.zoo.load()
    p = ap.plan(m)
    assert p.verify()
    want = ap.Interpreter(p).run(model_inputs(m, seed=3)[0][0])
    np.testing.assert_array_equal(np.load(out), want)
    # the same input from a file, and the plan from a plan file
    x = tmp_path / "x.npy"
    np.save(x, model_inputs(m, seed=3)[0][0])
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(p.to_json())
    assert main(["run", "--input", str(x), "--plan", str(plan_file), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["outputs"] == [[want.tolist()]] and data["bit_exact"] is None


def test_run_rejects_bad_inputs(capsys, tmp_path):
    import numpy as np
    bad = tmp_path / "bad.npy"
    np.save(bad, np.zeros((1, 2), np.float32))
    assert main(["run", "--input", str(bad)]) == 2
    assert "holds float32 [1, 2]; input" in capsys.readouterr().err
    assert main(["run", "--input", str(bad), "--input", str(bad)]) == 2
    assert "takes 1 input(s)" in capsys.readouterr().err
    assert main(["run", "--runs", "0"]) == 2
    assert "--runs must be in 1..10000" in capsys.readouterr().err
    assert main(["run", "--check"]) == 2
    assert "needs the model's .tflite file; ds_cnn comes from zoo:ds_cnn" in capsys.readouterr().err


def test_run_checks_a_stateful_model_against_litert(capsys):
    pytest.importorskip("ai_edge_litert.interpreter", reason="ai-edge-litert is not installable here")
    path = str(model_path("tflm_mnist_lstm_int8"))
    assert main(["run", path, "--runs", "3", "--check", "--mode", "speed", "--profile", "3"]) == 0
    out = capsys.readouterr().out
    assert "LiteRT reference kernels: 3 of 3 run(s) bit-exact" in out
    assert "UNIDIRECTIONAL_SEQUENCE_LSTM" in out and "whole run" in out


def test_an_unknown_model_name_lists_the_built_in_models(capsys):
    assert main(["plan", "dscnn"]) == 2
    err = capsys.readouterr().err
    assert "no model 'dscnn'" in err and "ds_cnn, mobilenet_v1_025, resnet8, autoencoder" in err


def test_run_says_what_a_file_that_is_not_npy_is(capsys, tmp_path):
    import numpy as np
    garbage = tmp_path / "x.npy"
    garbage.write_bytes(b"garbage, not an array\n")
    assert main(["run", "autoencoder", "--input", str(garbage)]) == 2
    err = capsys.readouterr().err
    assert "is not a .npy file" in err and "int8 [1, 640] for input 'input'" in err and "pickle" not in err
    objects = tmp_path / "o.npy"
    np.save(objects, np.array([object()], dtype=object), allow_pickle=True)
    assert main(["run", "autoencoder", "--input", str(objects)]) == 2
    err = capsys.readouterr().err
    assert "holds Python objects, which are not read" in err and "allow_pickle" not in err


def _quantize_model(tmp_path, zp):
    from harness.reference import litert_layers as L
    if L.unavailable_reason():
        pytest.skip(L.unavailable_reason())
    path = tmp_path / "quantize.tflite"
    path.write_bytes(L.single_op_model("QUANTIZE", [dict(shape=(1, 8), dtype="float32"),
                                                   dict(shape=(1, 8), dtype="int8", scale=0.5, zero_point=zp)],
                                       [0], [1]))
    return path


def test_run_check_of_non_finite_floats_is_bit_exact_with_litert(capsys, tmp_path):
    import numpy as np
    x = tmp_path / "x.npy"
    np.save(x, np.array([[np.inf, -np.inf, np.nan, 1e30, -1e30, 3e9, 1.0, -2.5]], np.float32))
    for zp in (3, -3):
        assert main(["run", str(_quantize_model(tmp_path, zp)), "--input", str(x), "--check"]) == 0
        assert "1 of 1 run(s) bit-exact" in capsys.readouterr().out


def test_run_check_says_which_outputs_differ_and_by_how_much(capsys, tmp_path, monkeypatch):
    import numpy as np
    from arenaplan.cli import run_model
    real = run_model.litert_reference_runs

    def off_by_some(source, runs):
        want = real(source, runs)
        want[0][0] = want[0][0].copy()
        want[0][0][0, 2] += 7
        want[0][0][0, 5] -= 2
        return want
    monkeypatch.setattr(run_model, "litert_reference_runs", off_by_some)
    x = tmp_path / "x.npy"
    np.save(x, np.zeros((1, 8), np.float32))
    assert main(["run", str(_quantize_model(tmp_path, 0)), "--input", str(x), "--check"]) == 1
    out = capsys.readouterr().out
    assert "0 of 1 run(s) bit-exact" in out
    assert "run 0, output 't1': 2 of 8 element(s) differ, by up to 7; first at [0, 2]: 0 here, 7 in LiteRT" in out


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


def test_cli_tflm(tmp_path, capsys):
    path = model_path("mlperf_tiny_vww_mobilenetv1_025_int8")
    assert main(["tflm", str(path), "--pointer-bytes", "8"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("constexpr int kTensorArenaSize = 103680;") and "saves" in out
    dst = tmp_path / "p.tflite"
    assert main(["tflm", str(path), "--json", "--write-offline-plan", str(dst)]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["predicted"] and d["offline_plan"]["saves_bytes"] > 0 and dst.exists()
    with pytest.raises(SystemExit):
        main(["tflm", str(path), "--pointer-bytes", "3"])


def test_cli_sweep_serial_and_on_two_workers_writes_the_same_records(tmp_path, capsys):
    kws = str(model_path("mlperf_tiny_kws_dscnn_int8"))
    args = ["sweep", kws, "resnet8", "--targets", "none", "cortex-m4", "--budgets", "none", "24KiB",
            "--modes", "size", "balanced", "--latency", "model:cortex-m4"]
    assert main(args + ["-o", str(tmp_path / "a.csv")]) == 0
    out = capsys.readouterr().out
    assert "16 combinations" in out and "mlperf_tiny_kws_dscnn_int8" in out
    assert main(args + ["--workers", "2", "-o", str(tmp_path / "b.csv")]) == 0
    capsys.readouterr()
    a, b = (tmp_path / "a.csv").read_text(), (tmp_path / "b.csv").read_text()
    assert a == b and len(a.splitlines()) == 17


def test_cli_sweep_with_a_scheduler_that_cannot_be_reached_says_so_before_any_work(capsys, monkeypatch):
    pytest.importorskip("distributed", reason="dask.distributed is not installed")
    monkeypatch.setattr(sweep_command, "CONNECT_TIMEOUT_S", 1)
    assert main(["sweep", "resnet8", "--scheduler", "tcp://127.0.0.1:9"]) == 2
    assert "cannot reach the Dask scheduler 'tcp://127.0.0.1:9' within 1 s" in capsys.readouterr().err
