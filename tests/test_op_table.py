"""The op table (_core.ops()): its rows as Python data, and params dicts checked field by
field against each row's descriptor (a clear ValueError, never a crash)."""
import numpy as np
import pytest

from arenaplan import _core
from arenaplan.ops.lowering import OP_CODES

ROWS = _core.ops()
BY_NAME = {row["name"]: row for row in ROWS}


def _conv_params(**changes):
    params = {"batches": 1, "input_h": 4, "input_w": 4, "input_c": 2, "output_h": 4, "output_w": 4,
              "output_c": 3, "filter_h": 3, "filter_w": 3, "stride_h": 1, "stride_w": 1, "dilation_h": 1,
              "dilation_w": 1, "pad_h": 1, "pad_w": 1, "input_offset": 0,
              "requant.multiplier": [1 << 30] * 3, "requant.shift": [0] * 3, "requant.per_channel": 1,
              "requant.output_offset": 0, "requant.activation_min": -128, "requant.activation_max": 127}
    params.update(changes)
    return params


def test_rows_are_unique_and_complete():
    # one row per (op, tensor types); an op's name and code agree across its rows
    assert len({(r["code"], r["types"]) for r in ROWS}) == len(ROWS) == len({(r["name"], r["types"]) for r in ROWS})
    assert len({r["code"] for r in ROWS}) == len({r["name"] for r in ROWS})
    assert OP_CODES == {r["name"]: r["code"] for r in ROWS}
    for r in ROWS:
        assert r["types"] in ("s8", "s16x8", "f32", "bool", "s32", "s64", "u8") and r["symbol"].startswith("AP_OP_") \
            and r["params_type"].startswith("ap_")
        lo, hi = r["arities"]["inputs"]
        if r["name"] == "JUMP":   # control flow: no input (always) or the condition, no output
            assert (lo, hi, r["arities"]["outputs"]) == (0, 1, 0)
        else:
            assert 1 <= lo <= hi and r["arities"]["outputs"] == 1
        names = [f[0] for f in r["params"]]
        assert len(names) == len(set(names)) and names
        for name, ftype, count, length, per, optional in r["params"]:
            if count == 0:      # a pointer: its length names an integer field of the same struct
                assert ftype.endswith("[]") and length in names and (per is None or per in names)
            else:
                assert not ftype.endswith("[]") and length is None and not optional
    assert {r["name"] for r in ROWS if r["has_blob"]} == {
        "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "UNIDIRECTIONAL_SEQUENCE_LSTM", "TRANSPOSE_CONV"}
    assert BY_NAME["SVDF"]["arities"] == {"inputs": (3, 4), "outputs": 1, "state": 1}


def test_a_complete_params_dict_lists_variants():
    names = [v[0] for v in _core.kernel_variants(OP_CODES["CONV_2D"], _conv_params())]
    assert "direct" in names


@pytest.mark.parametrize("params, words", [
    (_conv_params(stride_h=2 ** 31), ["CONV_2D", "stride_h", "2147483648", "int32"]),
    (_conv_params(pad_w=-2 ** 31 - 1), ["CONV_2D", "pad_w", "-2147483649"]),
    (_conv_params(stride_w=1.5), ["CONV_2D", "stride_w", "1.5", "not an integer"]),
    (_conv_params(**{"requant.multiplier": [1 << 30] * 2}), ["requant.multiplier", "2 values", "output_c", "3"]),
    (_conv_params(**{"requant.shift": [0, 0, 2 ** 40]}), ["requant.shift", "[2]", str(2 ** 40)]),
    (_conv_params(**{"requant.shift": None}), ["requant.shift", "required"]),
    (_conv_params(output_c=-1), ["output_c", "-1"]),
    (_conv_params(bogus=1), ["CONV_2D", "unknown params field", "bogus"]),
])
def test_bad_params_name_the_op_field_and_value(params, words):
    with pytest.raises(ValueError) as info:
        _core.kernel_variants(OP_CODES["CONV_2D"], params)
    for w in words:
        assert w in str(info.value)


def test_missing_fields_and_wrong_forms():
    params = _conv_params()
    del params["dilation_w"]
    with pytest.raises(ValueError, match="CONV_2D: params field 'dilation_w' .* is missing"):
        _core.kernel_variants(OP_CODES["CONV_2D"], params)
    with pytest.raises(TypeError, match="must be a dict"):
        _core.kernel_variants(OP_CODES["CONV_2D"], tuple(_conv_params().values()))
    with pytest.raises(ValueError, match="unknown op code 999"):
        _core.kernel_variants(999, {})
    pad = {"input_shape": [1, 2, 2, 1], "pad_before": [0, 1, 1, 0], "pad_after": [0, 1], "pad_value": 0}
    with pytest.raises(ValueError, match="'pad_after' has 2 values, the struct holds 4"):
        _core.kernel_variants(OP_CODES["PAD"], pad)
    q = {"count": 4, "scale": float("inf"), "zero_point": 0}
    with pytest.raises(ValueError, match="QUANTIZE: params field 'scale' = inf"):
        _core.kernel_variants(OP_CODES["QUANTIZE"], q)
    r = {"count": -1, "input_zero_point": 0, "output_zero_point": 0, "multiplier": 1 << 30, "shift": 0,
         "input_type": 0, "output_type": 0}
    with pytest.raises(ValueError, match="'count' = -1 is outside size_t"):
        _core.kernel_variants(OP_CODES["REQUANTIZE"], r)
    with pytest.raises(ValueError, match="'output_type' = 7 is outside ap_dtype"):
        _core.kernel_variants(OP_CODES["REQUANTIZE"], dict(r, count=4, output_type=7))


def test_numpy_values_and_optional_arrays():
    fc = {"batches": np.int32(1), "input_depth": 4, "output_depth": 2, "input_offset": 0, "filter_offset": 0,
          "requant.multiplier": np.array([1 << 30], np.int32), "requant.shift": [0], "requant.per_channel": 0,
          "requant.output_offset": 0, "requant.activation_min": -128, "requant.activation_max": 127,
          "real_scale": None, "reference": 0}
    assert _core.kernel_variants(OP_CODES["FULLY_CONNECTED"], fc)
    with pytest.raises(ValueError, match="'real_scale' has 2 values; requant.per_channel = 0"):
        _core.kernel_variants(OP_CODES["FULLY_CONNECTED"], dict(fc, real_scale=[0.5, 0.5]))
    prepared = _core.kernel_prepare(OP_CODES["FULLY_CONNECTED"], fc, np.zeros(8, np.int8), None)
    assert len(prepared) > 0
    with pytest.raises(ValueError, match="no constants to prepare"):
        _core.kernel_prepare(OP_CODES["RESHAPE"], {"bytes": 4}, np.zeros(1, np.int8), None)
