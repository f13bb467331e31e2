"""The command line: arenaplan plan."""
from __future__ import annotations

import json
import subprocess
import sys

from arenaplan.cli import main
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
    assert main(["plan", "resnet8", "--strategy", "greedy_size"]) == 0
    assert "greedy_size" in capsys.readouterr().out


def test_bad_model_path_is_a_clear_error(capsys, tmp_path):
    assert main(["plan", str(tmp_path / "missing.tflite")]) == 2
    err = capsys.readouterr().err
    assert "missing.tflite" in err and "error" in err


def test_console_script_runs():
    done = subprocess.run([sys.executable, "-m", "arenaplan.cli", "plan", "autoencoder"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "autoencoder" in done.stdout
