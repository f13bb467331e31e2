"""Plan files: round trips, and a loader that refuses what is wrong."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arenaplan as ap
from conftest import model_path


@pytest.mark.parametrize("name", ["mlperf_tiny_kws_dscnn_int8", "mlperf_tiny_ic_resnet8_int8",
                                  "tflm_micro_speech_int8", "tflm_keyword_scrambled_int8"])
@pytest.mark.parametrize("mode", ["size", "speed"])
def test_round_trip_runs_bit_exactly(name, mode):
    m = ap.load_tflite(model_path(name))
    p = ap.plan(m, mode=mode)
    q = ap.Plan.from_json(p.to_json())          # the model is found from the file's source
    assert q.verify()
    assert q.choices == p.choices and q.pool_bytes == p.pool_bytes
    assert [(b.pool, b.offset) for b in q.buffers] == [(b.pool, b.offset) for b in p.buffers]
    assert q.state_bytes == p.state_bytes and q.state_buffers == p.state_buffers
    t = m.tensors[m.inputs[0]]
    x = np.random.default_rng(1).integers(-128, 128, size=t.shape).astype(t.dtype)
    np.testing.assert_array_equal(ap.Interpreter(q).run(x), ap.Interpreter(p).run(x))


def test_zoo_plan_round_trip_and_latency():
    m = ap.zoo.load("resnet8")
    p = ap.plan(m, mode="balanced", budget="64KiB", latency="model:cortex-m4")
    q = ap.Plan.from_json(p.to_json())
    assert q.latency_s == pytest.approx(p.latency_s) and q.mode == "balanced"


def _plan_dict():
    p = ap.plan(ap.zoo.load("ds_cnn"), mode="speed")
    return p, json.loads(p.to_json())


def _load(d, model=None):
    return ap.Plan.from_json(json.dumps(d), model)


def test_wrong_version():
    _, d = _plan_dict()
    d["schema_version"] = 99
    with pytest.raises(ap.InvalidPlan, match="schema version 99"):
        _load(d)


@pytest.mark.parametrize("field", ["mode", "choices", "buffers", "pool_bytes", "arena_bytes", "model"])
def test_missing_fields(field):
    _, d = _plan_dict()
    del d[field]
    with pytest.raises(ap.InvalidPlan, match=field):
        _load(d)


def test_offset_outside_its_pool():
    _, d = _plan_dict()
    d["buffers"][0]["offset"] = d["pool_bytes"]["arena"]
    with pytest.raises(ap.InvalidPlan, match="outside pool 'arena'"):
        _load(d)


def test_overlapping_live_buffers():
    _, d = _plan_dict()
    # op 1's input and output are live together; put them at the same offset.
    conv_out = next(b for b in d["buffers"] if b["first"] == 0 and b["last"] == 1)
    dw_out = next(b for b in d["buffers"] if b["first"] == 1 and b["kind"] == "activation")
    dw_out["offset"] = conv_out["offset"]
    with pytest.raises(ap.InvalidPlan):
        _load(d)


def test_plan_for_another_model():
    p, d = _plan_dict()
    with pytest.raises(ap.InvalidPlan, match="not for 'resnet8'"):
        ap.Plan.from_json(p.to_json(), ap.zoo.load("resnet8"))
    d["model"]["sha256"] = "0" * 64
    with pytest.raises(ap.InvalidPlan, match="sha256 000000000000"):
        _load(d)


def test_changed_sizes_and_choices_are_caught():
    _, d = _plan_dict()
    d["buffers"][2]["size"] += 16
    with pytest.raises(ap.InvalidPlan, match="size"):
        _load(d)
    _, d = _plan_dict()
    d["choices"][1] = "winograd"
    with pytest.raises(ap.InvalidPlan, match="winograd"):
        _load(d)
    _, d = _plan_dict()
    d["choices"] = d["choices"][:-1]
    with pytest.raises(ap.InvalidPlan, match="choices"):
        _load(d)


@pytest.mark.parametrize("text", ["", "[]", "{", "null", '{"format": "something else"}'])
def test_not_a_plan(text):
    with pytest.raises(ap.InvalidPlan):
        ap.Plan.from_json(text)


_JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.floats()
                            | st.text(max_size=8), lambda c: st.lists(c, max_size=3)
                            | st.dictionaries(st.text(max_size=5), c, max_size=3), max_leaves=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fuzzed_plans_are_refused_cleanly(data):
    p, d = _plan_dict()
    model = p.model
    for _ in range(data.draw(st.integers(1, 3))):
        where = data.draw(st.sampled_from(["top", "buffer", "model"]))
        if where == "top":
            key = data.draw(st.sampled_from(sorted(d)))
            d[key] = data.draw(_JSON_VALUES)
        elif where == "buffer" and isinstance(d.get("buffers"), list) and d["buffers"]:
            i = data.draw(st.integers(0, len(d["buffers"]) - 1))
            if isinstance(d["buffers"][i], dict):
                key = data.draw(st.sampled_from(sorted(d["buffers"][i]) or ["name"]))
                d["buffers"][i][key] = data.draw(_JSON_VALUES)
        elif isinstance(d.get("model"), dict):
            key = data.draw(st.sampled_from(["name", "sha256", "source"]))
            d["model"][key] = data.draw(_JSON_VALUES)
    try:
        q = ap.Plan.from_json(json.dumps(d), model)
    except ap.InvalidPlan:
        return
    assert q.verify()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10 ** 6), st.integers(0, 255))
def test_byte_corruption_is_refused_cleanly(pos, value):
    p, _ = _plan_dict()
    raw = bytearray(p.to_json().encode())
    raw[pos % len(raw)] = value
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    try:
        q = ap.Plan.from_json(text, p.model)
    except ap.InvalidPlan:
        return
    assert q.verify()


# ---- the state pool (variable tensors) ----

from harness import svdf_models  # noqa: E402


def _state_plan():
    m = svdf_models.svdf_chain()
    p = ap.plan(m, mode="speed")
    return m, p, json.loads(p.to_json())


def test_state_pool_round_trip_runs_the_same_sequence():
    m, p, d = _state_plan()
    assert d["schema_version"] == 4 and d["state_bytes"] == 240 and d["state_pool"] is None
    assert [b["tensor"] for b in d["state_buffers"]] == m.variable_tensors()
    assert [b["fill"] for b in d["state_buffers"]] == [0, 0, 0xFD]
    q = _load(d, m)
    assert q.state_buffers == p.state_buffers
    a, b = ap.Interpreter(p), ap.Interpreter(q)
    for x in svdf_models.inputs(m, 4):
        np.testing.assert_array_equal(a.run(x), b.run(x))


def test_state_offsets_are_the_files_and_are_verified():
    m, p, d = _state_plan()
    # a layout with a gap is another valid decision: it loads, and runs the same
    d["state_bytes"] = 512
    d["state_buffers"][2]["offset"] = 496
    q = _load(d, m)
    assert q.state_buffers[2].offset == 496
    x = svdf_models.inputs(m, 1)[0]
    np.testing.assert_array_equal(ap.Interpreter(q).run(x), ap.Interpreter(p).run(x))
    for change, match in [(("offset", 1, 0), r"state buffers '\w+' and '\w+' share bytes"),
                          (("offset", 1, 4), "not aligned to 16"),
                          (("offset", 2, 496 + 16), "outside the state pool"),
                          (("tensor", 0, 5), "tensor is 5, the model gives"),
                          (("size", 0, 4), "size is 4"),
                          (("fill", 2, 0), "fill is 0, the model gives 253"),
                          (("alignment", 0, 2), "alignment is 2")]:
        field, i, value = change
        e = json.loads(json.dumps(d))
        e["state_buffers"][i][field] = value
        with pytest.raises(ap.InvalidPlan, match=match):
            _load(e, m)


@pytest.mark.parametrize("field", ["state_bytes", "state_buffers"])
def test_missing_state_fields(field):
    m, _, d = _state_plan()
    del d[field]
    with pytest.raises(ap.InvalidPlan, match=field):
        _load(d, m)


def test_state_buffer_count_must_match_the_model():
    m, _, d = _state_plan()
    d["state_buffers"] = d["state_buffers"][:2]
    with pytest.raises(ap.InvalidPlan, match="2 state buffers; the model has 3 variable tensors"):
        _load(d, m)


def test_version_1_files_still_load():
    """Files written before the state pool: the loader lays the state out as the model implies."""
    m, p, d = _state_plan()
    d["schema_version"] = 1
    del d["state_bytes"], d["state_buffers"]
    q = _load(d, m)
    assert q.state_buffers == p.state_buffers and q.state_bytes == p.state_bytes
    _, d = _plan_dict()
    d["schema_version"] = 1
    assert _load(d).state_buffers == []


def test_the_pool_holding_the_state_round_trips_and_is_checked():
    m = svdf_models.svdf_chain()
    t = ap.targets.get("cortex-m7")
    p = ap.plan(m, target=t, state_pool="sram")
    d = json.loads(p.to_json())
    assert d["state_pool"] == "sram"
    q = _load(d, m)
    assert q.state_pool == "sram" and q.verify()
    e = json.loads(json.dumps(d))
    e["state_pool"] = "itcm"
    with pytest.raises(ap.InvalidPlan, match="state pool 'itcm' is not a pool of target 'cortex-m7'"):
        _load(e, m)
    e["state_pool"] = 3
    with pytest.raises(ap.InvalidPlan, match="state_pool"):
        _load(e, m)
    # a target whose sram cannot hold the planned bytes and the state together
    e = json.loads(json.dumps(d))
    sram = next(pool for pool in e["target"]["pools"] if pool["name"] == "sram")
    sram["capacity"] = e["pool_bytes"]["sram"] + 16
    with pytest.raises(ap.InvalidPlan, match="pool 'sram' holds 0 planned bytes and the state's 256: "
                                             "240 more than its capacity of 16"):
        _load(e, m)


def test_version_2_files_hold_the_state_in_no_pool():
    m = svdf_models.svdf_chain()
    p = ap.plan(m, target=ap.targets.get("cortex-m7"))
    d = json.loads(p.to_json())
    d["schema_version"] = 2
    del d["state_pool"]
    q = _load(d, m)
    assert q.state_pool is None and q.state_buffers == p.state_buffers and q.verify()


# ---- figures the loader re-derives, and fields of the wrong type ----

def _target_plan():
    m = ap.load_tflite(model_path("tflm_keyword_scrambled_int8"))
    p = ap.plan(m, target="cortex-m7")
    assert p.verify()
    return m, p, json.loads(p.to_json())


def _plan_of_kind(which):
    """(model, plan, its file as a dict) of a plain plan, a stateful one or one over a target."""
    if which == "target":
        return _target_plan()
    if which == "state":
        return _state_plan()
    p, d = _plan_dict()
    return p.model, p, d


@pytest.mark.parametrize("which, path, value, words", [
    ("plain", ("lower_bound_bytes",), 10 ** 12, "'lower_bound_bytes' is 1,000,000,000,000, its buffers give"),
    ("plain", ("greedy_size_bytes",), 1, "'greedy_size_bytes' is 1, its buffers give"),
    ("plain", ("arena_bytes",), "+16", "'pool_bytes' gives pool 'arena'"),
    ("plain", ("optimal",), False, "'optimal' is false, but every pool is at the live-bytes bound"),
    ("state", ("state_bytes",), "*2", "'state_bytes' is"),
    ("target", ("pool_bytes", "dtcm"), "+16", "'pool_bytes' gives pool 'dtcm'"),
    ("target", ("optimal",), False, "'optimal' is false"),
    ("plain", ("latency_source",), [], "'latency_source' must be str or null"),
    ("plain", ("model", "source"), -1, "'source' must be str"),
    ("plain", ("model", "source"), True, "'source' must be str"),
    ("plain", ("buffers", 0, "tensors", 0), False, "tensors [False]"),
    ("target", ("target", "pools"), -1, "field 'target'"),
    ("plain", ("mode",), "fastest", "'mode' is 'fastest'"),
    ("plain", ("strategy",), "magic", "'strategy' is 'magic'"),
])
def test_figures_and_mistyped_fields_are_refused_naming_the_field(which, path, value, words):
    m, p, d = _plan_of_kind(which)
    node = d
    for key in path[:-1]:
        node = node[key]
    old = node[path[-1]]
    if isinstance(value, str) and value[0] in "+*":
        value = old + int(value[1:]) if value[0] == "+" else old * int(value[1:])
        if path == ("arena_bytes",):        # an arena that disagrees with its pool
            d["pool_bytes"]["arena"] = value
    node[path[-1]] = value
    with pytest.raises(ap.InvalidPlan) as info:
        _load(d, m)
    assert words in str(info.value)


def test_a_loaded_plan_reports_the_figures_of_its_buffers():
    p, d = _plan_dict()
    q = _load(d, p.model)
    assert q.verify()
    assert (q.lower_bound_bytes, q.greedy_size_bytes, q.arena_bytes) == \
        (p.lower_bound_bytes, p.greedy_size_bytes, p.arena_bytes)
    assert "saves -" not in q.summary()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fuzzed_figures_of_every_kind_of_plan_are_refused_or_equal_the_derived_ones(data):
    which = data.draw(st.sampled_from(["plain", "state", "target"]))
    m, p, d = _plan_of_kind(which)
    keys = ["lower_bound_bytes", "greedy_size_bytes", "arena_bytes", "state_bytes", "optimal",
            "latency_s", "latency_source", "strategy", "mode", "multi_pool", "pool_bytes", "target"]
    for _ in range(data.draw(st.integers(1, 3))):
        key = data.draw(st.sampled_from(keys))
        if key == "target" and isinstance(d.get("target"), dict):
            sub = data.draw(st.sampled_from(["pools", "name", "cores", "stack_scratch_limit"]))
            d["target"][sub] = data.draw(_JSON_VALUES)
        elif key == "pool_bytes" and isinstance(d.get("pool_bytes"), dict) and d["pool_bytes"]:
            pool = data.draw(st.sampled_from(sorted(d["pool_bytes"])))
            d["pool_bytes"][pool] = data.draw(st.one_of(st.integers(-5, 2 ** 40), _JSON_VALUES))
        else:
            d[key] = data.draw(st.one_of(_JSON_VALUES, st.integers(0, 2 ** 20)))
    try:
        q = ap.Plan.from_json(json.dumps(d), m)
    except ap.InvalidPlan:
        return
    assert q.verify()
    # whatever was accepted carries the figures its buffers give
    assert (q.lower_bound_bytes, q.greedy_size_bytes, q.arena_bytes, q.state_bytes, q.pool_bytes) == \
        (p.lower_bound_bytes, p.greedy_size_bytes, p.arena_bytes, p.state_bytes, p.pool_bytes)
    assert q.latency_source is None or isinstance(q.latency_source, str)
    q.summary()


def test_state_bytes_short_of_the_last_buffers_alignment_are_refused():
    # the last buffer ends inside 228 bytes, but the pool ends at its aligned end
    m, p, d = _state_plan()
    last = max(d["state_buffers"], key=lambda b: b["offset"])
    end = last["offset"] + last["size"]
    assert end < d["state_bytes"] == 240
    d["state_bytes"] = end
    with pytest.raises(ap.InvalidPlan, match=f"'state_bytes' is {end:,}, its buffers give 240"):
        _load(d, m)
