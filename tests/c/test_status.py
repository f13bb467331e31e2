"""Status names and error records through the C API."""


def test_status_names_are_stable(ffi, lib):
    expected = {
        lib.AP_OK: "ok",
        lib.AP_ERR_INVALID_ARGUMENT: "invalid_argument",
        lib.AP_ERR_OVERFLOW: "overflow",
        lib.AP_ERR_DOES_NOT_FIT: "does_not_fit",
        lib.AP_ERR_OUT_OF_MEMORY: "out_of_memory",
        lib.AP_ERR_SCRATCH_TOO_SMALL: "scratch_too_small",
        lib.AP_ERR_UNSUPPORTED: "unsupported",
        lib.AP_ERR_INVALID_PLAN: "invalid_plan",
        lib.AP_ERR_TIMEOUT: "timeout",
    }
    for value, name in expected.items():
        assert ffi.string(lib.ap_status_str(value)).decode() == name
    assert ffi.string(lib.ap_status_str(999)).decode() == "unknown"


def test_error_clear_resets_indices(ffi, lib):
    err = ffi.new("ap_error *")
    err.index = 5
    err.needed = 7
    lib.ap_error_clear(err)
    assert (err.index, err.other, err.op, err.needed) == (-1, -1, -1, 0)
    lib.ap_error_clear(ffi.NULL)


def test_quantize_multiplier_matches_tflite(ffi, lib):
    m = ffi.new("int32_t *")
    s = ffi.new("int32_t *")
    assert lib.ap_quantize_multiplier(0.5, m, s) == lib.AP_OK
    assert (m[0], s[0]) == (1 << 30, 0)
    assert lib.ap_quantize_multiplier(0.0, m, s) == lib.AP_OK
    assert (m[0], s[0]) == (0, 0)
    assert lib.ap_quantize_multiplier(-1.0, m, s) == lib.AP_ERR_INVALID_ARGUMENT
    assert lib.ap_quantize_multiplier(float("nan"), m, s) == lib.AP_ERR_INVALID_ARGUMENT
    # 1.0 is 0.5 * 2^1
    assert lib.ap_quantize_multiplier(1.0, m, s) == lib.AP_OK
    assert (m[0], s[0]) == (1 << 30, 1)
    assert lib.ap_multiply_by_quantized_multiplier(1000, 1 << 30, 0) == 500
    assert lib.ap_multiply_by_quantized_multiplier(-3, 1 << 30, 0) == -1  # -1.5 rounds away
    assert lib.ap_multiply_by_quantized_multiplier(3, 1 << 30, 0) == 2
