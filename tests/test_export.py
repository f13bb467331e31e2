"""C export: the written files build with the host gcc and, cross-compiled, run on a
Cortex-M under QEMU; both give ap.Interpreter's outputs bit for bit.

The runtime is compiled once per toolchain and flags (cached in pytest's cache dir,
keyed by the sources), each model's program links it. The Cortex-M tests print the
image sizes, the stack bound and the measured stack, and the instruction count
(run with -s to see them).
"""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest

import arenaplan as ap
from arenaplan.cli import main as cli_main
from arenaplan.errors import ArenaplanError, InvalidArgument, UnsupportedModel
from arenaplan.export import export_c, stack_usage
from arenaplan.ops.lowering import HOST_ISA
from conftest import ROOT, model_path

from harness.firmware import build as fw  # noqa: E402
from harness import svdf_models  # noqa: E402

HOST_MODELS = ["mlperf_tiny_kws_dscnn_int8", "mlperf_tiny_ic_resnet8_int8",
               "mlperf_tiny_ad_autoencoder_int8", "tflm_micro_speech_int8",
               "tflm_keyword_scrambled_int8",   # SVDF: state carried from sample to sample
               "tflm_mnist_lstm_int8"]          # LSTM: int8 and int16 state
#: (cpu, model, mode) built and run under QEMU.
ARM_CASES = [("cortex-m4", "mlperf_tiny_kws_dscnn_int8", "speed"),
             ("cortex-m4", "mlperf_tiny_kws_dscnn_int8", "target"),   # planned over the preset's pools
             ("cortex-m4", "mlperf_tiny_ic_resnet8_int8", "size"),
             ("cortex-m4", "mlperf_tiny_ad_autoencoder_int8", "speed"),
             ("cortex-m4", "svdf_chain", "size"),                     # state carried on the board
             ("cortex-m4", "tflm_mnist_lstm_int8", "size"),           # LSTM: int8 and int16 state
             ("cortex-m7", "mlperf_tiny_kws_dscnn_int8", "size"),
             ("cortex-m33", "mlperf_tiny_kws_dscnn_int8", "speed"),  # mps2-an505's memory map
             ("cortex-m33", "mlperf_tiny_ad_autoencoder_int8", "size")]


def samples(model, count, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        xs = []
        for t in model.inputs:
            tensor = model.tensors[t]
            if tensor.dtype == "bool":
                xs.append(rng.integers(0, 2, size=tensor.shape).astype(bool))
                continue
            if tensor.dtype == "float32":
                xs.append(rng.standard_normal(tensor.shape).astype(np.float32))
                continue
            info = np.iinfo(tensor.dtype)
            xs.append(rng.integers(info.min, info.max + 1, size=tensor.shape, dtype=tensor.dtype))
        out.append(xs)
    return out


def output_specs(model):
    return [(model.tensors[t].dtype, model.tensors[t].shape) for t in model.outputs]


def expected(plan, samples_):
    """The Interpreter's outputs for samples run in order by one interpreter (as the test
    programs run them: a stateful model's variable tensors carry over)."""
    it = ap.Interpreter(plan)
    outs = []
    for xs in samples_:
        out = it.run(xs if len(xs) > 1 else xs[0])
        outs.append(out if isinstance(out, list) else [out])
    return outs


_plans = {}


def has_targets():
    import inspect
    return hasattr(ap, "targets") and "target" in inspect.signature(ap.plan).parameters


def plan_of(name, mode, target=None, isa=None):
    """A plan of a shared model, or of "svdf_chain" (harness/svdf_models.py), for ``isa``
    (default: the target's, or the host's)."""
    if (name, mode, target, isa) not in _plans:
        kwargs = {} if isa is None else {"isa": isa}
        if target is not None:
            if not has_targets():
                pytest.skip("plans over targets' pools are not in this version")
            kwargs["target"] = ap.targets.get(target)
        model = svdf_models.svdf_chain() if name == "svdf_chain" else ap.load_tflite(model_path(name))
        _plans[(name, mode, target, isa)] = ap.plan(model, mode=mode, **kwargs)
    return _plans[(name, mode, target, isa)]


@pytest.fixture(scope="session")
def host_runtime(request):
    return fw.cached_runtime(fw.HOST_CC, fw.HOST_FLAGS, "host")


# --- host build ------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["size", "speed"])
@pytest.mark.parametrize("name", HOST_MODELS)
def test_host_build_is_bit_exact(name, mode, host_runtime, tmp_path):
    p = plan_of(name, mode)
    out = p.export_c(tmp_path, name="net")
    exe = fw.build_host(out, host_runtime, tmp_path)
    xs = samples(p.model, 3)
    got = fw.run_host(exe, xs, output_specs(p.model), tmp_path)
    assert len(got) == len(xs)
    for outs, wants in zip(got, expected(p, xs)):
        for g, want in zip(outs, wants):
            assert g.dtype == want.dtype and g.shape == want.shape
            np.testing.assert_array_equal(g, want)


def one_op_model(name: str) -> bytes:
    """A one-op .tflite model of each op added for model coverage (issue 27), built by its
    own test file's model builder."""
    if name in ("STRIDED_SLICE", "STRIDED_SLICE_16X8"):
        from test_strided_slice import slice_model
        return slice_model((2, 3, 4, 5, 6), [1, 0, 1, 4, 5], [2, 3, 4, 0, 0], [1, 2, 2, -1, -3],
                           dtype="int16" if name.endswith("16X8") else "int8")
    if name == "LEAKY_RELU":
        from test_leaky_relu import leaky_model
        return leaky_model(0.05, -7, 0.04, 3, 0.25, (3, 100))
    if name == "LEAKY_RELU_16X8":
        from test_leaky_relu import leaky16_model
        return leaky16_model(2e-3, 0, 5e-4, 0, 0.25, (3, 100))
    if name == "SUB":
        from test_sub import sub_model
        return sub_model((3, 1, 8), (1, 5, 1), (3, 5, 8), (0.02, 0.013, 0.007), (-128, 127, 5), 1)
    if name in ("TRANSPOSE", "TRANSPOSE_16X8"):
        from test_transpose import transpose_model
        return transpose_model((2, 3, 4, 5, 6), (4, 2, 0, 3, 1), dtype="int16" if name.endswith("16X8") else "int8")
    if name in ("SPLIT", "SPLIT_16X8"):
        from test_split import split_model
        if name.endswith("16X8"):
            return split_model((2, 3, 4, 6), -1, 3, zp=0, dtype="int16")
        return split_model((2, 3, 4, 6), -1, 3)
    if name in ("SPLIT_V", "SPLIT_V_16X8"):
        from test_split import split_v_model
        return split_v_model((2, 9, 5), 1, [2, -1, 4], dtype="int16" if name.endswith("16X8") else "int8")
    if name in ("LOGISTIC", "TANH"):
        from test_logistic_tanh import model_of
        return model_of(name, 0.03, -9, (3, 100))
    if name == "HARD_SWISH":
        from test_hard_swish import hard_swish_model
        return hard_swish_model(0.05, 3, 0.03, -100, (3, 100))
    if name in ("TRANSPOSE_CONV", "TRANSPOSE_CONV_16X8"):
        from test_transpose_conv import tconv_model
        return tconv_model(np.random.default_rng(21), (1, 4, 4, 3), 4, (3, 3), (2, 2), "SAME",
                           int16=name.endswith("16X8"))
    if name in ("RELU6", "RELU_N1_TO_1"):
        from test_relu6 import relu_x_model
        return relu_x_model(name, 0.05, -7, 0.04, 3, (3, 100))
    if name == "SLICE":
        from test_slice import slice_model
        return slice_model((2, 3, 4, 5, 6), [1, 2, 0, 4, 1], [1, 1, 4, -1, 3])
    if name == "PACK":
        from test_pack import pack_model
        return pack_model((3, 5), 3, -2)
    if name == "UNPACK":
        from test_pack import unpack_model
        return unpack_model((2, 3, 4, 5), -2)
    if name in ("MAXIMUM", "MINIMUM"):
        from test_maximum_minimum import minmax_model
        return minmax_model(name, (3, 1, 8), (1, 5, 1), qs=((0.05, 3), (0.1, -128), (0.2, 127)))
    if name == "ABS":
        from test_abs import abs_model
        return abs_model(0.05, -7, 0.04, 3, (3, 100))
    if name in ("DEPTH_TO_SPACE", "SPACE_TO_DEPTH"):
        from test_depth_space import depth_space_model
        return depth_space_model(name, (2, 3, 2, 18) if name == "DEPTH_TO_SPACE" else (2, 6, 3, 2), 3)
    if name in ("RESIZE_NEAREST_NEIGHBOR", "RESIZE_BILINEAR"):
        from test_resize import resize_model
        return resize_model(name, (2, 3, 5, 2), (7, 4), half=True)
    if name == "BATCH_TO_SPACE_ND":
        from test_batch_space import batch_space_model
        return batch_space_model(name, (12, 3, 2, 2), [3, 2], [[2, 1], [0, 3]])
    if name == "SPACE_TO_BATCH_ND":
        from test_batch_space import batch_space_model
        return batch_space_model(name, (2, 4, 1, 2), [3, 2], [[2, 0], [1, 2]], q=(0.04, 127))
    if name == "MIRROR_PAD":
        from test_mirror_pad import mirror_pad_model
        return mirror_pad_model((2, 3, 5), [[1, 1], [2, 0], [0, 4]], 0)
    if name == "PRELU":
        from test_prelu import prelu_model
        return prelu_model((1, 4, 4, 8), (1, 1, 8), (0.05, -3), (0.01, 3), (0.04, 5))
    if name == "SQUARED_DIFFERENCE":
        from test_squared_difference import sqdiff_model
        return sqdiff_model((3, 1, 8), (1, 5, 1))
    if name in ("REDUCE_MAX", "REDUCE_MIN"):
        from test_reduce_max_min import reduce_model
        return reduce_model(name, (2, 3, 4, 5), [0, -2], True)
    if name == "SUM":
        from test_sum import sum_model
        return sum_model((2, 3, 4, 5), [0, -2], True)
    if name == "BROADCAST_TO":
        from test_broadcast_to import broadcast_to_model
        return broadcast_to_model((4, 1, 1), (2, 4, 3, 5))
    if name in ("EQUAL", "GREATER_EQUAL", "LESS", "LOGICAL_AND", "LOGICAL_NOT"):
        from test_comparisons import compare_model
        dtype = {"EQUAL": "int8", "GREATER_EQUAL": "float32", "LESS": "int32"}.get(name, "bool")
        return compare_model(name, dtype, (3, 1, 8), (1, 5, 1))
    if name in ("LESS_S64", "EQUAL_S16"):   # int64, and LiteRT's int16 (rescaled under "litert")
        from test_compare_s16 import model16
        from test_comparisons import compare_model
        return compare_model("LESS", "int64", (3, 1, 8), (1, 5, 1)) if name == "LESS_S64" else \
            model16("EQUAL", (3, 1, 8), (1, 5, 1), qs=((0.003, 7), (0.001, -2)))
    if name in ("MAXIMUM_S64", "CONCATENATION_S64"):
        from test_int64 import binary_model, graph
        return binary_model("MAXIMUM", (3, 1, 8), (1, 5, 1)) if name == "MAXIMUM_S64" else \
            graph("CONCATENATION", [(2, 3, 4), (2, 1, 4)], (2, 4, 4), "ConcatenationOptions", axis=1)
    if name in ("ARG_MAX", "ARG_MIN"):
        from test_arg_minmax import arg_model
        return arg_model(name, "int8" if name == "ARG_MAX" else "float32", (3, 6, 4), -2,
                         out="int64" if name == "ARG_MIN" else "int32")
    if name in ("GATHER", "GATHER_F32"):
        from test_gather import gather_model
        return gather_model("float32" if name.endswith("F32") else "int8", (2, 6, 3), (4,), 1,
                            indices=np.array([5, 0, 2, 2], np.int32))
    if name in ("SELECT_V2", "SELECT_V2_F32"):
        from test_select_v2 import select_model
        return select_model("float32" if name.endswith("F32") else "int8", (3, 1, 4), (1, 5, 4), (3, 5, 1))
    if name == "CAST":
        from test_cast import cast_model
        return cast_model("float32", "int8", (3, 5, 4))
    if name == "FILL":
        from test_fill import fill_model
        return fill_model("int8", (2, 3, 5), "int64")
    if name == "ZEROS_LIKE":
        from test_fill import zeros_like_model
        return zeros_like_model("float32", (2, 3, 5))
    if name == "SHAPE":
        from test_fill import shape_model
        return shape_model("int8", (2, 3, 5), "int64")
    if name in ("FLOOR_MOD", "FLOOR_MOD_S32"):
        from test_floor_div_mod import floor_model
        return floor_model("FLOOR_MOD", "int32" if name.endswith("S32") else "float32", (3, 1, 8), (1, 5, 1),
                           b_data=np.arange(1, 6, dtype=np.int32).reshape(1, 5, 1) if name.endswith("S32") else None)
    if name == "ADD_N":
        from test_add_n import add_n_model
        return add_n_model("float32", (2, 3, 5), 3)
    if name == "EMBEDDING_LOOKUP":
        from test_gather import embedding_model
        return embedding_model("int8", 10, (6,), 4, ids=np.array([9, 0, 3, 3], np.int32))
    if name in ("L2_NORMALIZATION", "L2_NORMALIZATION_F32"):
        from test_l2_normalization import l2_norm_model
        return l2_norm_model((3, 17), "float32" if name.endswith("F32") else "int8", 0.05, 4)
    if name in ("LOG_SOFTMAX", "LOG_SOFTMAX_F32"):
        from test_log_softmax import log_softmax_model
        return log_softmax_model((3, 17), "float32" if name.endswith("F32") else "int8", 0.1, -2)
    if name == "L2_POOL_2D":
        from test_l2_pool import l2_pool_model
        return l2_pool_model((1, 7, 7, 3), (3, 3), (2, 2), "SAME", "RELU6")
    if name in ("CUMSUM", "CUMSUM_F32"):
        from test_cumsum import cumsum_model
        return cumsum_model((2, 3, 5), -2, True, True, "float32" if name.endswith("F32") else "int8",
                            (0.05, 3, 0.25, -1))
    if name in ("EXP", "ROUND"):
        from test_math_f32 import math_model
        return math_model(name, (3, 17))
    if name in ("DIV", "DIV_F32", "DIV_S32"):
        from test_div import div_model
        if name == "DIV_S32":
            return div_model("int32", (3, 1, 8), (1, 5, 1), b_data=np.array([-7, -1, 1, 3, 2 ** 31 - 1],
                                                                             np.int32).reshape(1, 5, 1))
        if name == "DIV_F32":
            return div_model("float32", (3, 1, 8), (1, 5, 1), act="RELU6")
        return div_model("int8", (3, 1, 8), (1, 5, 1), ((0.05, 3), (0.1, -7), (0.2, 0)),
                         b_data=np.array([-128, -8, 1, 50, 127], np.int8).reshape(1, 5, 1))
    if name in ("RSQRT", "ELU"):
        from unary_s8 import unary_model
        return unary_model(name, (3, 40), 0.04, -128 if name == "RSQRT" else 7, 0.03, 10, version=1)
    raise KeyError(name)


ONE_OP_MODELS = ["STRIDED_SLICE", "LEAKY_RELU", "SUB", "TRANSPOSE", "SPLIT", "SPLIT_V", "LOGISTIC", "TANH",
                 "HARD_SWISH", "TRANSPOSE_CONV", "TRANSPOSE_CONV_16X8", "STRIDED_SLICE_16X8", "TRANSPOSE_16X8",
                 "SPLIT_16X8", "SPLIT_V_16X8", "LEAKY_RELU_16X8",
                 "RELU6", "RELU_N1_TO_1", "SLICE", "PACK", "UNPACK", "MAXIMUM", "MINIMUM", "ABS",
                 "DEPTH_TO_SPACE", "SPACE_TO_DEPTH", "RESIZE_NEAREST_NEIGHBOR", "RESIZE_BILINEAR",
                 "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND", "MIRROR_PAD", "PRELU", "SQUARED_DIFFERENCE",
                 "REDUCE_MAX", "REDUCE_MIN", "SUM", "BROADCAST_TO", "EQUAL", "GREATER_EQUAL", "LESS", "LOGICAL_AND",
                 "LOGICAL_NOT", "ARG_MAX", "ARG_MIN", "GATHER", "GATHER_F32", "SELECT_V2", "SELECT_V2_F32",
                 "CAST", "FILL", "ZEROS_LIKE", "SHAPE", "FLOOR_MOD", "FLOOR_MOD_S32", "ADD_N",
                 "EMBEDDING_LOOKUP", "L2_NORMALIZATION", "L2_NORMALIZATION_F32", "LOG_SOFTMAX", "LOG_SOFTMAX_F32",
                 "L2_POOL_2D", "CUMSUM", "CUMSUM_F32", "EXP", "ROUND", "DIV", "DIV_F32", "DIV_S32", "RSQRT", "ELU",
                 "LESS_S64", "MAXIMUM_S64", "CONCATENATION_S64", "EQUAL_S16"]
#: Ops whose kernels differ by the rounding rule: each rule's variants are built.
ONE_OP_REFERENCES = {"LOGISTIC": ("litert", "tflm"), "TANH": ("litert", "tflm"), "RELU6": ("litert", "tflm"),
                     "PRELU": ("litert", "tflm"), "SUM": ("tflm",), "CAST": ("litert", "tflm"), "ADD_N": ("litert", "tflm"),
                     "CUMSUM": ("tflm",), "RSQRT": ("litert", "tflm"), "ELU": ("litert", "tflm")}


@pytest.mark.parametrize("op", ONE_OP_MODELS)
def test_one_op_host_build_is_bit_exact(op, host_runtime, tmp_path):
    """Each op's row builds in the C export and runs as the Interpreter does (the op test files
    hold the Interpreter to LiteRT); every variant of the op, each in its own plan, under each
    rounding rule whose kernels differ."""
    path = tmp_path / "one_op.tflite"
    path.write_bytes(one_op_model(op))
    model = ap.load_tflite(path)
    # one op, or one op per output of a split (arenaplan.model.model.one_output_ops)
    base = op
    for suffix in ("_16X8", "_F32", "_S32", "_S64", "_S16"):
        base = base.replace(suffix, "")
    assert {o.type for o in model.operators} == {base} and len(model.operators) == len(model.outputs)
    from arenaplan.planning.context import PlanContext
    xs = samples(model, 3)
    for reference in ONE_OP_REFERENCES.get(op, ("litert",)):
        ctx = PlanContext.build(model, isa="portable", reference=reference)
        for j in range(max(len(k.variants) for k in ctx.kernels)):
            chosen = [k.variants[min(j, len(k.variants) - 1)] for k in ctx.kernels]
            v = chosen[0]
            p = ctx.make(chosen, "size")
            assert p.verify()
            where = tmp_path / f"{reference}_{v.name}"
            out = p.export_c(where, name="net")
            exe = fw.build_host(out, host_runtime, where)
            got = fw.run_host(exe, xs, output_specs(model), where)
            assert len(got) == len(xs)
            for outs, wants in zip(got, expected(p, xs)):
                for g, want in zip(outs, wants):
                    assert g.dtype == want.dtype and g.shape == want.shape
                    np.testing.assert_array_equal(g, want, err_msg=f"{op}, {v.name} ({reference})")


@pytest.mark.parametrize("mode", ["size", "speed"])
def test_stateful_export_carries_state_and_resets(mode, host_runtime, tmp_path):
    """Two SVDFs and an int8 variable tensor (zero point -3): the export's static state pool
    carries over between invokes exactly as the Interpreter's, and matches the NumPy
    reference of TFLite's SVDF; its int8 state starts at the zero point."""
    p = plan_of("svdf_chain", mode)
    out = p.export_c(tmp_path, name="net", sections={"state": ".state_ram"})
    h, c = out.header.read_text(), out.source.read_text()
    assert f"#define NET_STATE_BYTES {p.state_bytes}u" in h and "void net_reset_state(void);" in h
    assert out.state_bytes == p.state_bytes == 240
    assert 'uint8_t net_state[NET_STATE_BYTES] NET_ALIGNED(16) NET_SECTION(".state_ram") = {' in c
    fill = next(b for b in p.state_buffers if b.fill)
    assert fill.fill == 0xFD and f"memset(net_state + {fill.offset}u, 253, 4u);" in c
    exe = fw.build_host(out, host_runtime, tmp_path)
    xs = [[x] for x in svdf_models.inputs(p.model, 6)]
    got = fw.run_host(exe, xs, output_specs(p.model), tmp_path)
    reference = svdf_models.reference_outputs(p.model, [x[0] for x in xs])
    for outs, wants, ref in zip(got, expected(p, xs), reference):
        np.testing.assert_array_equal(outs[0], wants[0])
        np.testing.assert_array_equal(outs[0], ref)
    assert len({o[0].tobytes() for o in got}) == len(xs)    # the state makes each step differ


def test_state_section_name_is_checked(tmp_path):
    p = plan_of("svdf_chain", "size")
    with pytest.raises(InvalidArgument, match="state pool is not a plain section name"):
        p.export_c(tmp_path, sections={"state": "a b"})
    stateless = plan_of("tflm_micro_speech_int8", "size")
    with pytest.raises(InvalidArgument, match="sections name pool"):
        stateless.export_c(tmp_path, sections={"state": ".x"})


@pytest.mark.parametrize("target", ["cortex-m4", "cortex-m7", "dual-m7-m4"])
def test_target_plans_build_and_run(target, host_runtime, tmp_path):
    # the target's pools, built and run on this host: the plan is for the host's ISA
    p = plan_of("mlperf_tiny_kws_dscnn_int8", "size", target, isa=HOST_ISA)
    out = p.export_c(tmp_path, name="net")
    assert out.pool_bytes == p.pool_bytes and len(p.pool_bytes) > 1
    exe = fw.build_host(out, host_runtime, tmp_path)
    xs = samples(p.model, 2)
    for outs, wants in zip(fw.run_host(exe, xs, output_specs(p.model), tmp_path), expected(p, xs)):
        np.testing.assert_array_equal(outs[0], wants[0])


def test_export_files(tmp_path):
    p = plan_of("mlperf_tiny_kws_dscnn_int8", "speed")
    out = export_c(p, tmp_path / "new" / "dir", sections={"arena": ".dtcm"})
    assert out.name == "mlperf_tiny_kws_dscnn_int8"
    h, c = out.header.read_text(), out.source.read_text()
    assert f"#define MLPERF_TINY_KWS_DSCNN_INT8_POOL_ARENA_BYTES {p.arena_bytes}u" in h
    assert "#define MLPERF_TINY_KWS_DSCNN_INT8_INPUT0_BYTES 490u" in h
    assert "#define MLPERF_TINY_KWS_DSCNN_INT8_OUTPUT0_BYTES 12u" in h
    assert "int mlperf_tiny_kws_dscnn_int8_invoke(const void *const *inputs, void *const *outputs);" in h
    assert 'MLPERF_TINY_KWS_DSCNN_INT8_SECTION(".dtcm")' in c
    assert "malloc" not in c and "printf" not in c
    # one pool array; every other array is const (flash)
    arrays = [line for line in c.splitlines() if "[" in line and "=" in line and "static" in line]
    assert arrays and all(line.startswith("static const") or line.startswith("static void *const")
                          for line in arrays)
    assert out.const_bytes > sum(k.prepared().__len__() for k in p.kernels if k.weighted) - 1
    assert out.pool_bytes == p.pool_bytes


@pytest.mark.parametrize("kind", ["workspace", "stack"])
def test_several_pools_build_and_run(kind, host_runtime, tmp_path):
    """Scratch moved to a second pool (all at offset 0: each lives only at its op), plus an
    empty third pool; a "stack" pool becomes a local array of the entry point."""
    p = plan_of("mlperf_tiny_kws_dscnn_int8", "speed")
    buffers = [dataclasses.replace(b, pool="scratch", offset=0) if b.kind == "scratch" else b
               for b in p.buffers]
    arena = max(-(-(b.offset + b.size) // 16) * 16 for b in buffers if b.kind == "activation")
    scratch = max(-(-b.size // 16) * 16 for b in buffers if b.kind == "scratch")
    Pool = ap.targets.Pool
    target = ap.targets.Target("test-board", (Pool("arena", "64KiB", 16), Pool("scratch", "64KiB", 32, kind),
                                              Pool("spare", "1KiB", 16)))
    two = dataclasses.replace(p, buffers=buffers, arena_bytes=arena + scratch, target=target,
                              pool_sizes={"arena": arena, "scratch": scratch, "spare": 0})
    two.verify()
    sections = {"arena": ".sram1"} if kind == "stack" else {"scratch": ".sram2"}
    out = two.export_c(tmp_path, name="two", sections=sections)
    h, c = out.header.read_text(), out.source.read_text()
    assert "#define TWO_POOL_COUNT 3" in h and f"#define TWO_POOL_SCRATCH_BYTES {scratch}u" in h
    assert "#define TWO_POOL_SPARE_BYTES 0u" in h and "two_pool_spare[" not in c
    local = "    uint8_t two_pool_scratch[TWO_POOL_SCRATCH_BYTES] TWO_ALIGNED(32);"
    assert (local in c) == (kind == "stack")
    exe = fw.build_host(out, host_runtime, tmp_path)
    xs = samples(two.model, 2)
    for outs, wants in zip(fw.run_host(exe, xs, output_specs(two.model), tmp_path), expected(p, xs)):
        np.testing.assert_array_equal(outs[0], wants[0])


# --- Cortex-M under QEMU -----------------------------------------------------------------------
@pytest.mark.parametrize("cpu,name,mode", ARM_CASES)
def test_cortex_m_under_qemu_is_bit_exact(cpu, name, mode, tmp_path):
    # the firmware runs the core's ISA (arm-dsp): the plan is for it
    isa = ap.targets.get(cpu).isa
    p = plan_of(name, "size", cpu) if mode == "target" else plan_of(name, mode, isa=isa)
    assert p.isa == isa
    xs = samples(p.model, 2, seed=1)
    core_run = fw.run_plan_on_core(p, cpu, xs, tmp_path, timeout=300)
    run, firmware = core_run.qemu, core_run.firmware
    for got, wants in zip(core_run.outputs, expected(p, xs)):
        for g, want in zip(got, wants):
            np.testing.assert_array_equal(g, want)
    stack = stack_usage(firmware.ci_files, "net_invoke", firmware.elf, objects=firmware.objects)
    # the static bound holds what the run touched (painted stack, measured from the call)
    assert 0 < run.stack_bytes <= stack.bytes
    # the deterministic instruction count repeats for the same work (icount: the board's
    # instructions per tick)
    assert all(t > 0 for t in run.ticks) and len(run.instructions) == len(run.ticks)
    # the runtime reaches no printf family with AP_NO_ERROR_MESSAGES
    assert not any("printf" in f for f in stack.library_frames)
    print(f"\n{cpu} {name} {mode}: image text {firmware.sizes['text']} data {firmware.sizes['data']} "
          f"bss {firmware.sizes['bss']}; export+runtime text {firmware.footprint['text']} "
          f"data {firmware.footprint['data']} bss {firmware.footprint['bss']}; "
          f"stack bound {stack.bytes} B, measured {run.stack_bytes} B; "
          f"instructions per inference ~{min(run.instructions):,}\n  worst path: {stack.describe()}")


@pytest.mark.parametrize("cpu", sorted(fw.ARM_CPUS))
def test_board_tick_calibration(cpu, tmp_path):
    """Each board's table entry (build.BOARDS) holds its instructions per SysTick tick under
    -icount shift=0, as measured by timing loops of known length on it: 40 on mps2-an386 and
    mps2-an500 (25 MHz), 50 on mps2-an505 (20 MHz), 31.25 on mps3-an547 (32 MHz)."""
    if fw.missing_arm_tools():
        pytest.skip("Cortex-M toolchain not installed")
    arch = fw.ARM_CPUS[cpu]
    measured = fw.measure_instructions_per_tick(arch, tmp_path)
    assert measured == pytest.approx(arch.board.instructions_per_tick, rel=1e-3)


# --- bad input -----------------------------------------------------------------------------------
def test_plan_with_ops_without_kernels_is_refused(tmp_path):
    m = ap.load_tflite(model_path("tflm_audio_preprocessor_int8"))
    p = ap.plan(m, require_kernels=False)
    assert p.unsupported
    with pytest.raises(UnsupportedModel, match="CUSTOM"):
        p.export_c(tmp_path)
    assert not list(tmp_path.iterdir())


def test_unwritable_output_dir(tmp_path):
    p = plan_of("tflm_micro_speech_int8", "size")
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(InvalidArgument, match="cannot write the C export") as info:
        p.export_c(blocker / "out")
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("kwargs,match", [
    ({"name": "3net"}, "not a C identifier"),
    ({"name": "a-b"}, "not a C identifier"),
    ({"sections": {"sram": ".dtcm"}}, "sections name pool"),
    ({"sections": {"arena": ".dtcm\"); x"}}, "not a plain section name"),
    ({"name": "net", "sections": {"arena": ".dtcm", "sram": ".x"}}, "sections name pool"),
])
def test_bad_names_and_sections(kwargs, match, tmp_path):
    p = plan_of("tflm_micro_speech_int8", "size")
    with pytest.raises(InvalidArgument, match=match):
        p.export_c(tmp_path, **kwargs)


def test_export_needs_a_plan(tmp_path):
    with pytest.raises(InvalidArgument, match="needs an arenaplan.Plan"):
        export_c("plan", tmp_path)


def test_stack_usage_reports_what_it_cannot_bound(tmp_path):
    ci = tmp_path / "a.ci"
    ci.write_text('graph: { title: "a.c"\n'
                  'node: { title: "f" label: "f\\na.c:1:1\\n16 bytes (static)" }\n'
                  'node: { title: "g" label: "g\\na.c:2:1\\n8 bytes (static)" }\n'
                  'edge: { sourcename: "f" targetname: "g" }\n'
                  'edge: { sourcename: "g" targetname: "f" }\n}\n')
    with pytest.raises(ArenaplanError, match="recursion"):
        stack_usage([ci], "f")
    ci.write_text('graph: { title: "a.c"\n'
                  'node: { title: "f" label: "f\\na.c:1:1\\n16 bytes (static)" }\n'
                  'node: { title: "g" label: "g\\na.c:2:1\\n8 bytes (static)" }\n'
                  'edge: { sourcename: "f" targetname: "g" }\n}\n')
    report = stack_usage([ci], "f")
    assert report.bytes == 24 and [f for f, _ in report.path] == ["f", "g"]
    with pytest.raises(ArenaplanError, match="not in the call graph"):
        stack_usage([ci], "h")


# --- command line ------------------------------------------------------------------------------
def test_cli_export(tmp_path, capsys):
    path = str(model_path("mlperf_tiny_kws_dscnn_int8"))
    rc = cli_main(["export", path, "--mode", "size", "--name", "kws", "--section", "arena=.dtcm",
                   "-o", str(tmp_path)])
    assert rc == 0
    assert (tmp_path / "kws.h").exists() and (tmp_path / "kws.c").exists()
    assert "kws_invoke" in capsys.readouterr().out
    assert cli_main(["export", path, "--section", "arena", "-o", str(tmp_path)]) == 2
    assert "POOL=SECTION" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert cli_main(["export", path, "-o", str(blocker / "out")]) == 2
    assert "cannot write the C export" in capsys.readouterr().err


def test_target_sections_place_the_pools_and_the_state(tmp_path):
    """A target pool's section holds its array; the state goes to the section of the pool
    that holds it; sections= overrides both."""
    m = svdf_models.svdf_chain()
    t = ap.targets.get("cortex-m7")
    p = ap.plan(m, target=t)
    assert p.state_pool == "dtcm" and t.pool("dtcm").section == ".dtcm"
    c = p.export_c(tmp_path / "a", name="net").source.read_text()
    assert 'uint8_t net_state[NET_STATE_BYTES] NET_ALIGNED(16) NET_SECTION(".dtcm")' in c
    assert 'net_pool_dtcm[NET_POOL_DTCM_BYTES] NET_ALIGNED(16) NET_SECTION(".dtcm")' in c
    c = p.export_c(tmp_path / "b", name="net", sections={"state": ".noinit", "dtcm": ".fast"}).source.read_text()
    assert 'NET_SECTION(".noinit")' in c and 'NET_SECTION(".fast")' in c and '".dtcm"' not in c
    q = ap.plan(m, target=t, state_pool="sram")
    c = q.export_c(tmp_path / "c", name="net").source.read_text()
    assert "uint8_t net_state[NET_STATE_BYTES] NET_ALIGNED(16) = {" in c   # sram declares no section


def test_cli_export_names_the_state_pool(tmp_path, capsys):
    assert cli_main(["export", str(model_path("tflm_keyword_scrambled_int8")),
                     "-o", str(tmp_path), "--target", "cortex-m7", "--state-pool", "sram"]) == 0
    assert "state 10,240 B (persistent in pool 'sram')" in capsys.readouterr().out
    assert cli_main(["export", str(model_path("tflm_keyword_scrambled_int8")), "-o", str(tmp_path),
                     "--state-pool", "sram"]) == 2
    assert "give --target too" in capsys.readouterr().err
