"""TensorFlow Lite Micro's allocation rules, as data.

Checked against the ``tflite-micro`` Python package ``0.dev20261023182759`` (TFLM's
interpreter with its reference kernels, a 64-bit host build, the recording allocator).
The 64-bit figures are that build's; the 32-bit (Cortex-M) figures and the CMSIS-NN
scratch rules are predictions from the same rules with 4-byte pointers and from
CMSIS-NN's ``*_get_buffer_size`` functions, not measurements.

Where each figure comes from: structure sizes are the sizeof of TFLM's structs on the
build (common.h, micro_allocator.h, micro_allocation_info.h, greedy_memory_planner.h,
micro_resource_variable.h); options sizes are the TfLite*Params structs
flatbuffer_conversions allocates; OpData sizes are what each kernel's Init asks
AllocatePersistentBuffer for (read off the recording allocator's "requested" bytes of a
one-op model, since the package's structs are not all the ones its headers show); which
temporary tensors a kernel's Prepare holds at once is read from its Prepare. No figure is
fitted: the allocator objects before the model (``allocator_objects``: 448 B on the
package's 64-bit build) are derived from their members and equal the sizes the package's
binary allocates, and each SubgraphAllocations is three pointers in the package's
USE_TFLM_COMPRESSION build (the pointer these rules once added before the model and the
8 B once added after the node structs with resource variables, both measured, were that
third pointer: 24 B a subgraph, as a trace of the package's AllocatePersistentBuffer
calls shows).

Persistent buffers a kernel's Prepare allocates while its temporaries are live
(``late_prepare_writes``: GATHER, EMBEDDING_LOOKUP, GATHER_ND, BATCH_MATMUL, the int8 OpData
of ADD_N, LOG_SOFTMAX and CUMSUM) are checked by TFLM against the head only, so they may
overlap the temporaries; the rules find the smallest arena where no write to them lands on a
temporary's field still to be read. Where those writes land depends on where the tail ends,
so that is checked at the arena itself (a larger arena may fail where a smaller prepared).
An Init buffer the kernel never reads (a float32 ELU's table, ``init_data_unused``) may fail
to allocate without harm, which the rules use as TFLM does.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import numpy as np

from dataclasses import dataclass

from ..model.model import PER_OUTPUT_OPS, Model, Operator

__all__ = ["TFLM_VERSION", "ALIGNMENT", "KERNELS", "POINTER_BYTES", "Sizes", "sizes_for",
           "SUPPORTED_OPS", "kernel_scratch", "kernel_persistent", "lifetimes"]

#: The tflite-micro package version these rules were checked against.
TFLM_VERSION = "0.dev20261023182759"
#: MicroArenaBufferAlignment(): every planned buffer and kernel buffer is rounded to it.
ALIGNMENT = 16
KERNELS = ("reference", "cmsis-nn")
POINTER_BYTES = (4, 8)

# TFLM's parsed builtin options: (sizeof, alignof) of the TfLite*Params struct each op's
# parser allocates in the tail (flatbuffer_conversions.cc through MicroBuiltinDataAllocator:
# AllocatePersistentBuffer(sizeof(T), alignof(T))), from builtin_op_data.h; ops whose parser
# allocates nothing (RELU, PAD, TRANSPOSE, QUANTIZE, ...) are absent. All-int structs: the
# same on 32- and 64-bit targets. FULLY_CONNECTED's and TRANSPOSE_CONV's are the pinned
# package's (its params carry fields past the ones listed in builtin_op_data.h).
_OPTIONS = {"FULLY_CONNECTED": (32, 4), "CONV_2D": (28, 4), "DEPTHWISE_CONV_2D": (28, 4), "ADD": (8, 4),
            "SUB": (8, 4), "AVERAGE_POOL_2D": (40, 4), "MAX_POOL_2D": (40, 4), "RESHAPE": (36, 4),
            "SOFTMAX": (4, 4), "SVDF": (16, 4), "UNIDIRECTIONAL_SEQUENCE_LSTM": (16, 4), "MUL": (4, 4),
            "CONCATENATION": (8, 4), "STRIDED_SLICE": (24, 4), "SQUEEZE": (36, 4), "TRANSPOSE_CONV": (20, 4),
            "LEAKY_RELU": (4, 4), "MEAN": (1, 1), "SPLIT": (4, 4), "SPLIT_V": (4, 4), "CALL_ONCE": (4, 4),
            "RESIZE_BILINEAR": (2, 1), "RESIZE_NEAREST_NEIGHBOR": (2, 1), "DEPTH_TO_SPACE": (4, 4),
            "SPACE_TO_DEPTH": (4, 4), "MIRROR_PAD": (4, 4), "REDUCE_MAX": (1, 1), "REDUCE_MIN": (1, 1),
            "SUM": (1, 1), "PACK": (8, 4), "UNPACK": (8, 4),
            # TfLiteGatherParams (axis, batch_dims), TfLiteArgMaxParams / TfLiteArgMinParams
            # (the output type), TfLiteCastParams (input and output types), TfLiteShapeParams
            "GATHER": (8, 4), "ARG_MAX": (4, 4), "ARG_MIN": (4, 4), "CAST": (8, 4), "SHAPE": (4, 4),
            # TfLiteDivParams and TfLiteL2NormParams (the activation), TfLitePoolParams,
            # TfLiteCumsumParams (two bools), TfLiteBatchMatMulParams (three bools)
            "DIV": (4, 4), "L2_NORMALIZATION": (4, 4), "L2_POOL_2D": (40, 4), "CUMSUM": (2, 1),
            "BATCH_MATMUL": (3, 1),
            # REDUCE_ALL's TfLiteReducerParams (keep_dims), as REDUCE_MAX's
            "REDUCE_ALL": (1, 1),
            # TfLiteIfParams (then and else subgraph indices), TfLiteWhileParams (cond, body)
            "IF": (8, 4), "WHILE": (8, 4)}
# TfLiteVarHandleParams: two string pointers
_POINTER_OPTIONS = {"VAR_HANDLE": 2}
#: Ops without options (their parser allocates nothing).
_NO_OPTIONS = ("QUANTIZE", "DEQUANTIZE", "RELU", "LOGISTIC", "TANH", "HARD_SWISH", "PAD", "PADV2", "TRANSPOSE",
               "EXPAND_DIMS", "READ_VARIABLE", "ASSIGN_VARIABLE", "MAXIMUM", "MINIMUM", "ABS",
               "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND", "PRELU", "SQUARED_DIFFERENCE", "BROADCAST_TO", "SLICE",
               "RELU6",
               # ParseEqual ... ParseLessEqual, ParseLogical*, ParseSelectV2, ParseFill,
               # ParseZerosLike, ParseFloorDiv / ParseFloorMod, ParseAddN and
               # ParseEmbeddingLookup allocate nothing
               "EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL", "LOGICAL_AND",
               "LOGICAL_OR", "LOGICAL_NOT", "SELECT_V2", "FILL", "ZEROS_LIKE", "FLOOR_DIV", "FLOOR_MOD",
               "ADD_N", "EMBEDDING_LOOKUP",
               # the fourth ops: ParseExp ... ParseCeil, ParseElu, ParseLogSoftmax, ParseGatherNd
               # and ParseBroadcastArgs allocate nothing
               "EXP", "LOG", "SIN", "COS", "SQRT", "RSQRT", "SQUARE", "NEG", "ROUND", "FLOOR", "CEIL", "ELU",
               "LOG_SOFTMAX", "GATHER_ND", "BROADCAST_ARGS",
               # ParseReverseV2 allocates nothing
               "REVERSE_V2")
#: Ops (TFLite builtin names) whose TFLM kernels these rules describe.
SUPPORTED_OPS = tuple(sorted(set(_OPTIONS) | set(_NO_OPTIONS) | set(_POINTER_OPTIONS)))
#: Builtin ops the pinned package registers a kernel for (its op resolver's Register_*
#: functions, less the Signal library's and other custom ops). A builtin op not listed has
#: no TFLM kernel: TFLM refuses the model at any arena size.
TFLM_KERNELS = frozenset("""
ABS ADD ADD_N ARG_MAX ARG_MIN ASSIGN_VARIABLE AVERAGE_POOL_2D BATCH_MATMUL BATCH_TO_SPACE_ND BROADCAST_ARGS
BROADCAST_TO CALL_ONCE CAST CEIL CONCATENATION CONV_2D COS CUMSUM DEPTHWISE_CONV_2D DEPTH_TO_SPACE DEQUANTIZE DIV
ELU EMBEDDING_LOOKUP EQUAL EXP EXPAND_DIMS FILL FLOOR FLOOR_DIV FLOOR_MOD FULLY_CONNECTED GATHER GATHER_ND GREATER
GREATER_EQUAL HARD_SWISH IF L2_NORMALIZATION L2_POOL_2D LEAKY_RELU LESS LESS_EQUAL LOG LOGICAL_AND LOGICAL_NOT
LOGICAL_OR LOGISTIC LOG_SOFTMAX MAXIMUM MAX_POOL_2D MEAN MINIMUM MIRROR_PAD MUL NEG NOT_EQUAL PACK PAD PADV2 PRELU
QUANTIZE READ_VARIABLE REDUCE_ALL REDUCE_MAX REDUCE_MIN RELU RELU6 RESHAPE RESIZE_BILINEAR RESIZE_NEAREST_NEIGHBOR
REVERSE_V2 ROUND RSQRT SELECT_V2 SHAPE SIN SLICE SOFTMAX SPACE_TO_BATCH_ND SPACE_TO_DEPTH SPLIT SPLIT_V SQRT SQUARE
SQUARED_DIFFERENCE SQUEEZE STRIDED_SLICE SUB SUM SVDF TANH TRANSPOSE TRANSPOSE_CONV UNIDIRECTIONAL_SEQUENCE_LSTM
UNPACK VAR_HANDLE WHILE ZEROS_LIKE""".split())
# Activation types TFLM's kernels accept, per op, where narrower than SUPPORTED_TYPES
# (reference kernels of the pinned version; "16x8" ops take int16 activations with int8
# weights and int64 biases). The int8/float32-only ones: each int16 one-op model fails to
# allocate or to run in the package (tests/test_tflm_ops.py).
_OP_TYPES = {"STRIDED_SLICE": ("int8", "int16", "int32", "float32", "bool"),
             "MEAN": ("int8", "int16", "int32", "float32"),
             "TRANSPOSE_CONV": ("int8", "int16", "float32"),
             "HARD_SWISH": ("int8", "float32"), "LEAKY_RELU": ("int8", "int16", "float32"),
             "TANH": ("int8", "int16", "float32"), "RELU": ("int8", "int16", "float32"),
             "RELU6": ("int8", "int16", "float32"),
             # int8 and float32 only: the pinned package refuses int16 (Prepare or Eval)
             **{op: ("int8", "float32") for op in ("DEPTH_TO_SPACE", "SPACE_TO_DEPTH", "RESIZE_BILINEAR",
                                                     "MIRROR_PAD", "PRELU", "REDUCE_MAX", "REDUCE_MIN",
                                                     "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND")}}
_CMP = ("EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL")
# The third ops: the types each kernel's Prepare or Eval takes (its switch over the data
# input's type; every other type fails to allocate or to run in the pinned package,
# tests/test_tflm_third_ops.py).
_OP_TYPES.update({
    "EQUAL": ("int8", "int32", "int64", "float32", "bool"), "NOT_EQUAL": ("int8", "int32", "int64", "float32", "bool"),
    "GREATER": ("int8", "int16", "int32", "int64", "float32"),
    **{op: ("int8", "int32", "int64", "float32") for op in ("GREATER_EQUAL", "LESS", "LESS_EQUAL")},
    **{op: ("bool",) for op in ("LOGICAL_AND", "LOGICAL_OR", "LOGICAL_NOT")},
    "ARG_MAX": ("int8", "float32"), "ARG_MIN": ("int8", "float32"),
    "GATHER": ("int8", "float32"), "EMBEDDING_LOOKUP": ("int8", "float32"),
    "SELECT_V2": ("int8", "int16", "float32"), "FILL": ("int8", "int32", "float32"),
    "ZEROS_LIKE": ("int8", "int32", "int64", "float32"), "FLOOR_DIV": ("float32",), "FLOOR_MOD": ("float32",),
    "ADD_N": ("int8", "float32")})
#: The fourth ops' element-wise float32 math: each kernel's Prepare (or Eval) takes float32
#: only (elementwise.cc's IsNumericSupportedType, exp.cc, neg.cc, round.cc, floor.cc, ceil.cc)
MATH_F32_OPS = ("EXP", "LOG", "SIN", "COS", "SQRT", "SQUARE", "NEG", "ROUND", "FLOOR", "CEIL")
# The fourth ops: the types each kernel takes (every other one fails to allocate or to run
# in the pinned package, tests/test_tflm_fourth_ops.py)
_OP_TYPES.update({
    **{op: ("float32",) for op in MATH_F32_OPS + ("L2_POOL_2D",)},
    **{op: ("int8", "float32") for op in ("RSQRT", "ELU", "L2_NORMALIZATION", "LOG_SOFTMAX", "CUMSUM",
                                          "GATHER_ND")},
    "DIV": ("int8", "int32", "float32"), "BATCH_MATMUL": ("int8", "int16", "float32"),
    "BROADCAST_ARGS": ("int32", "int64"),
    # reverse.cc's Prepare takes these; reduce.cc's REDUCE_ALL bool only
    "REVERSE_V2": ("int8", "int16", "int32", "int64", "float32", "bool", "uint8"), "REDUCE_ALL": ("bool",)})
# uint8 (TensorFlow Lite Micro's five uint8 pairs): BROADCAST_TO and REVERSE_V2 move the bytes,
# DEQUANTIZE reads uint8, QUANTIZE requantises int8 <-> uint8 (kernel_refusal names the other
# pairs with a uint8 side, which its Prepare refuses)
_OP_TYPES.update({
    "BROADCAST_TO": ("int8", "int16", "int32", "int64", "float32", "bool", "uint8", "resource"),
    "DEQUANTIZE": ("int8", "int16", "uint8"),
    "QUANTIZE": ("int8", "int16", "int32", "int64", "float32", "bool", "uint8", "resource")})
# The output types of the ops whose output is not of their data input's type.
_OUT_TYPES = {**{op: ("bool",) for op in _CMP}, "ARG_MAX": ("int32",), "ARG_MIN": ("int32",),
              "DEQUANTIZE": ("float32",),
              "SHAPE": ("int32",), "EMBEDDING_LOOKUP": ("int8", "float32")}
#: The input whose type is the op's data type, where it is not input 0.
DATA_INPUT = {"TRANSPOSE_CONV": 2, "SPLIT": 1, "SELECT_V2": 1, "FILL": 1, "EMBEDDING_LOOKUP": 1}
# Types TFLM's kernels accept for these ops' activations.
SUPPORTED_TYPES = ("int8", "int16", "int32", "int64", "float32", "bool", "resource")


#: RuntimeShape::kMaxSmallSize of the pinned package: the highest input rank REVERSE_V2's
#: Prepare takes (a rank-7 model fails to allocate at any size).
REVERSE_MAX_RANK = 6


def kernel_refusal(model: Model, op) -> Optional[str]:
    """Why TFLM's kernel fails ``op`` whatever the arena (its Prepare, or its Eval on the
    file's constant operands), where the file tells; None when it does not. REVERSE_V2
    (reverse.cc): an input of rank above 6 or more axes than the rank fail Prepare; constant
    axes out of range, repeated or not contiguous fail every Eval, and an empty axes vector
    is read before its start (the package crashes). QUANTIZE with a uint8 side: Prepare takes
    int8 -> uint8 and uint8 -> int8 only."""
    if op.type == "QUANTIZE" and op.inputs and op.outputs:
        src, dst = model.tensors[op.inputs[0]].dtype, model.tensors[op.outputs[0]].dtype
        if "uint8" in (src, dst) and {src, dst} != {"int8", "uint8"}:
            return (f"QUANTIZE {src} -> {dst}: TensorFlow Lite Micro's QUANTIZE takes uint8 only from or to "
                    "int8")
        return None
    if op.type != "REVERSE_V2" or len(op.inputs) < 2:
        return None
    x, a = model.tensors[op.inputs[0]], model.tensors[op.inputs[1]]
    rank, n = len(x.shape), int(np.prod(a.shape))
    if rank > REVERSE_MAX_RANK:
        return f"the input has rank {rank}; TFLite Micro's REVERSE_V2 takes at most {REVERSE_MAX_RANK}"
    if n > rank:
        return f"{n} axes for an input of rank {rank}; TFLite Micro's REVERSE_V2 takes at most the rank"
    if n == 0:
        return "the axes tensor is empty; TFLite Micro's REVERSE_V2 reads before its start"
    data = getattr(a, "data", None)
    if data is None:
        return None
    values = [int(v) for v in np.asarray(data).reshape(-1)]
    if any(not -rank <= v < rank for v in values):
        return f"axes {values} lie outside [{-rank}, {rank}); TFLite Micro's REVERSE_V2 fails every run"
    axes = sorted(v % rank for v in values)
    if any(b != a0 + 1 for a0, b in zip(axes, axes[1:])):
        return f"axes {values} are not distinct and contiguous; TFLite Micro's REVERSE_V2 fails every run"
    return None


#: kMaxScratchBuffersPerOp: the head keeps room for this many more scratch requests while
#: each op prepares (micro_allocator.cc).
MAX_SCRATCH_PER_OP = 12


def op_types(op_type: str) -> Tuple[str, ...]:
    """Tensor types TFLM's kernel for ``op_type`` accepts (its data input and outputs)."""
    return _OP_TYPES.get(op_type, SUPPORTED_TYPES)


def output_types(op_type: str) -> Tuple[str, ...]:
    """Tensor types TFLM's kernel for ``op_type`` writes."""
    return _OUT_TYPES.get(op_type, op_types(op_type))


def prepare_temp_tensors(op, model=None) -> Tuple[int, ...]:
    """The tensors whose temporary TfLiteTensors are live at once at the peak of the op's
    Prepare (kernels' AllocateTempInputTensor / AllocateTempOutputTensor calls)."""
    ins = tuple(op.inputs)
    outs = tuple(op.outputs)
    if op.type in ("CONV_2D", "DEPTHWISE_CONV_2D"):
        # ConvPrepare / DepthwiseConvPrepare hold output, input and filter while
        # CalculateOpData* takes input, filter, bias and output again
        return (outs[0], ins[0], ins[1]) + ins[:3] + outs[:1]
    if op.type == "TRANSPOSE_CONV":
        # inputs: output shape, filter, input, bias; Prepare holds output, input and filter
        # while CalculateOpData takes input, filter, bias and output again
        return (outs[0], ins[2], ins[1]) + (ins[2], ins[1]) + ins[3:4] + outs[:1]
    if op.type in ("MEAN", "SUM"):
        # PrepareMeanOrSum and PrepareSimple fetch their tensors through GetInput /
        # GetOutput, whose temporaries live until the op's Prepare ends (PrepareSimple
        # fetches the output only for int8)
        q = (outs[0],) if model is None or model.tensors[ins[0]].dtype == "int8" else ()
        return (ins[0], outs[0], ins[0], ins[1]) + q + (ins[1],)
    if op.type in ("SPLIT", "SPLIT_V"):
        return ins
    if op.type == "RESHAPE":
        return ins[:1] + outs
    if op.type == "IF":
        return ins[:1]                          # IfPrepare: the condition only
    if op.type in ("VAR_HANDLE", "CALL_ONCE", "MAXIMUM", "MINIMUM", "PACK", "UNPACK", "LOGICAL_AND", "LOGICAL_OR",
                   "ARG_MAX", "ARG_MIN", "SHAPE", "WHILE"):
        return ()                               # no Prepare (or one that fetches nothing)
    if op.type in _CMP:
        return ins[:2]                          # ComparisonsPrepare: the two inputs
    if op.type == "ADD_N":
        # CalculateOpData: the first input and the output, then each other input in turn
        # (each released, but the temporaries' space is reclaimed only after Prepare)
        return (ins[0], outs[0]) + ins[1:]
    if op.type in ("BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND", "DEPTH_TO_SPACE", "SPACE_TO_DEPTH"):
        return ins[:1] + outs[:1]               # GetInput / GetOutput of input and output only
    if op.type == "RELU6":
        return ins[:1]                          # Relu6Prepare: the input only
    if op.type in ("REDUCE_MAX", "REDUCE_MIN", "REDUCE_ALL"):
        # PrepareMax (REDUCE_ALL's Prepare as REDUCE_MAX's, measured): PrepareSimple fetches input, axis and (int8) output through
        # GetInput / GetOutput, then input, output and axis again
        q = (outs[0],) if model is None or model.tensors[ins[0]].dtype == "int8" else ()
        return (ins[0], ins[1]) + q + (ins[0], outs[0], ins[1])
    if op.type == "ASSIGN_VARIABLE":
        return ins[1:2]
    if op.type in ("CONCATENATION", "TANH"):
        return ins + outs + ins[:1]
    return ins + outs


def allocator_objects(p: int, recording: bool) -> int:
    """Bytes of the objects MicroAllocator::Create places in the tail before the model is
    read, each at its own size and alignment (micro_allocator.cc; the members of
    single_arena_buffer_allocator.h, greedy_memory_planner.h, micro_allocator.h):

    - SingleArenaBufferAllocator: the vtable pointers of its two interfaces, buffer_head_,
      buffer_tail_, head_, tail_, temp_, temp_buffer_ptr_check_sum_ (an intptr_t) and
      temp_buffer_count_ (an int): 72 B with 8-byte pointers, 36 with 4;
    - GreedyMemoryPlanner: a vtable pointer, max_buffer_count_ and buffer_count_, the four
      working-array pointers, next_free_entry_ and first_entry_index_, buffer_offsets_ and
      need_to_calculate_offsets_ (a bool): 72 / 44 B;
    - MicroAllocator: a vtable pointer, the two buffer allocators, the builtin-data
      allocator and the planner, model_is_allocating_, scratch_buffer_request_count_,
      scratch_buffer_head_ and max_head_buffer_usage_: 72 / 36 B.

    The tflite-micro package's interpreter creates them through RecordingMicroAllocator
    (recording_micro_allocator.cc), whose RecordingSingleArenaBufferAllocator adds four
    size_t counters and whose RecordingMicroAllocator adds its allocator pointer and eight
    RecordedAllocation {requested, used, count}: 104 + 72 + 272 = 448 B on the 64-bit host
    build, the sizes its RecordingSingleArenaBufferAllocator::Create and
    RecordingMicroAllocator::Create pass to AllocatePersistentBuffer (0x68, 0x48, 0x110;
    tests/test_tflm_third_ops.py reads them from the package's binary). A firmware's
    MicroInterpreter creates the plain ones: 36 + 44 + 36 = 116 B with 4-byte pointers."""
    def up(x: int) -> int:
        return -(-x // p) * p
    arena = up(2 * p + 5 * p + p + 4) + (4 * p if recording else 0)
    planner = up(p + 4 + 4 + 4 * p + 4 + 4 + p + 1)
    allocator = 9 * p + ((p + 8 * 3 * p) if recording else 0)
    return arena + planner + allocator


class Sizes:
    """sizeof / per-record bytes of TFLM's structures for one pointer size."""

    def __init__(self, pointer_bytes: int) -> None:
        p = pointer_bytes
        self.pointer_bytes = p
        self.eval_tensor = 3 * p                    # TfLiteEvalTensor: data, dims, type
        self.node_and_registration = 8 * p          # TfLiteNode (7 words) + registration pointer
        self.tflite_tensor = 64 if p == 8 else 40   # TfLiteTensor (TF_LITE_STATIC_MEMORY build)
        self.affine_quantization = 3 * p            # TfLiteAffineQuantization: scale, zero_point, dim
        # SubgraphAllocations, one per subgraph: the node and eval-tensor arrays and, in a
        # USE_TFLM_COMPRESSION build such as the package's, the compressed-tensors list
        # (24 B each on the host: StartModelAllocation's request, traced); a firmware built
        # without compression keeps two pointers
        self.subgraph_allocations = 3 * p if p == 8 else 2 * p
        self.builtin_data_allocator = 2 * p         # MicroBuiltinDataAllocator: vtable, allocator
        self.allocation_info = 4 * p if p == 8 else 24   # AllocationInfo record while planning
        self.planner_per_buffer = 40                # GreedyMemoryPlanner::PerBufferSize()
        self.scratch_request = p + 8                # ScratchBufferRequest: bytes, node, subgraph
        self.scratch_handle = p                     # ScratchBufferHandle: one pointer
        # The arena allocator, memory planner and allocator objects created in the tail
        # before the model is read (allocator_objects): the recording ones of the
        # tflite-micro package on the 64-bit host (448 B), a firmware's plain ones on a
        # 32-bit target (116 B)
        self.fixed = allocator_objects(p, recording=p == 8)
        self.subgraph_offset = p                    # AllocationInfoBuilder: a size_t per subgraph
        # kernels' OpData structs (Init's AllocatePersistentBuffer), bytes per op type
        self.op_data = {"FULLY_CONNECTED": 72 if p == 8 else 56, "CONV_2D": 80 if p == 8 else 64,
                        "DEPTHWISE_CONV_2D": 80 if p == 8 else 64, "ADD": 60, "AVERAGE_POOL_2D": 32,
                        "MAX_POOL_2D": 32, "SOFTMAX": 80, "SVDF": 36, "QUANTIZE": 32,
                        "UNIDIRECTIONAL_SEQUENCE_LSTM": 688 if p == 8 else 600, "MUL": 44,
                        "LOGISTIC": 16, "DEQUANTIZE": 32,
                        "SUB": 52, "RELU": 28, "LEAKY_RELU": 24, "TANH": 16, "HARD_SWISH": 20,
                        "PAD": 56, "PADV2": 56, "CONCATENATION": 80, "MEAN": 44, "STRIDED_SLICE": 84,
                        "TRANSPOSE_CONV": 88 if p == 8 else 72,
                        # call_once.cc OpData {init_subgraph_index, has_run}; var_handle.cc
                        # OpData {resource_id}; assign_variable.cc's OpData {scratch_index}
                        # (the package is built with USE_TFLM_COMPRESSION)
                        "CALL_ONCE": 8, "VAR_HANDLE": 4, "ASSIGN_VARIABLE": 4,
                        # if.cc's and while.cc's OpData: their two subgraph indices (the
                        # package's IF keeps no intermediate copy buffers; its Init asks 8 B)
                        "IF": 8, "WHILE": 8,
                        # elementwise.cc's OpDataAbsRsqrt, space_to_batch_nd's params (an
                        # offset), OpDataMirrorPad (five ints), PreluParams (seven ints),
                        # squared_difference's OpData (a bool and ArithmeticParams),
                        # OpDataReduce, Relu6OpData; MAXIMUM, MINIMUM, RESIZE_*, DEPTH_TO_SPACE,
                        # SPACE_TO_DEPTH, BATCH_TO_SPACE_ND, BROADCAST_TO, SLICE, PACK and
                        # UNPACK have no Init (the recording allocator's requests, as above)
                        "ABS": 28, "SPACE_TO_BATCH_ND": 4, "MIRROR_PAD": 20, "PRELU": 28,
                        "SQUARED_DIFFERENCE": 112, "REDUCE_MAX": 44, "REDUCE_MIN": 44, "SUM": 44, "RELU6": 8,
                        # REDUCE_ALL: OpDataReduce, as REDUCE_MAX (the recording allocator's
                        # request); REVERSE_V2 has no Init
                        "REDUCE_ALL": 44,
                        # comparisons.cc's OpData: ComparisonParams (seven ints and a bool);
                        # select.cc's OpData: one bool in the pinned package. LOGICAL_*,
                        # ARG_MAX/MIN, GATHER, CAST, FILL, ZEROS_LIKE, SHAPE, FLOOR_DIV,
                        # FLOOR_MOD, ADD_N and EMBEDDING_LOOKUP have no Init (or one that
                        # returns nullptr)
                        **{op: 32 for op in _CMP}, "SELECT_V2": 1,
                        # the fourth ops: RSQRT's OpDataAbsRsqrt (ABS's), ELU's int8 table
                        # (256 B, float32 too), div.cc's OpData (seven ints), l2norm.cc's
                        # L2NormalizationParams (the input's zero point), L2_POOL_2D's OpData
                        # (20 B, the recording allocator's request);
                        # EXP, LOG, SIN, COS, SQRT, SQUARE, NEG, ROUND, FLOOR, CEIL, LOG_SOFTMAX,
                        # CUMSUM, GATHER_ND and BROADCAST_ARGS have no Init
                        "RSQRT": 28, "ELU": 256, "DIV": 28, "L2_NORMALIZATION": 4, "L2_POOL_2D": 20,
                        # OpDataBatchMatmul: three pointers and three bools
                        "BATCH_MATMUL": 32 if p == 8 else 16}
        # OpData that Prepare allocates (not Init): add_n.cc's int8 OpData (ten ints);
        # embedding_lookup.cc's OpData (a float and a size_t)
        # log_softmax.cc's int8 LogSoftmaxOpData (five int32 and two size_t); cumsum.cc's
        # int8 OpData (nine ints)
        self.prepare_op_data = {"ADD_N": 40, "EMBEDDING_LOOKUP": 2 * p, "LOG_SOFTMAX": 24 + 2 * p if p == 8 else 28,
                                "CUMSUM": 36}
        # MicroResourceVariables (the array's pointer, two ints) and one
        # MicroResourceVariable per variable (container, shared name, buffer, bytes,
        # default value), which the interpreter's owner creates before the model is read
        self.resource_variables = p + 8
        self.resource_variable = 4 * p + (8 if p == 8 else 4)
        # bytes of the TfLiteTensor*-array the interpreter keeps of its inputs and outputs
        self.tensor_pointer = p


def sizes_for(pointer_bytes: int) -> Sizes:
    return Sizes(pointer_bytes)


def options_of(op, pointer_bytes: int = 8) -> Tuple[int, int]:
    """(bytes, alignment) of the op's parsed builtin options, (0, 1) when none."""
    if op.type in _POINTER_OPTIONS:
        return _POINTER_OPTIONS[op.type] * pointer_bytes, pointer_bytes
    return _OPTIONS.get(op.type, (0, 1))


def options_bytes(op, pointer_bytes: int = 8) -> int:
    return options_of(op, pointer_bytes)[0]


def _channels(model: Model, op) -> int:
    if op.type == "TRANSPOSE_CONV":
        return int(model.tensors[op.inputs[1]].shape[0])
    return int(model.tensors[op.outputs[0]].shape[-1])


def _cmsis_lstm(model: Model, op, kernels: str) -> bool:
    """Whether CMSIS-NN's own LSTM runs the op (int8 or int16 activations, an int16 cell
    state; cmsis_nn/unidirectional_sequence_lstm.cc), not the reference code it falls back on."""
    t = model.tensors
    return (kernels == "cmsis-nn" and op.type == "UNIDIRECTIONAL_SEQUENCE_LSTM"
            and t[op.inputs[0]].dtype in ("int8", "int16") and t[op.inputs[19]].dtype == "int16")


def cmsis_lstm_params_bytes(p: int) -> int:
    """sizeof(cmsis_nn_lstm_params) (arm_nn_types.h): 15 int32, then four cmsis_nn_lstm_gate
    of four int32, five pointers and an enum each, at the pointers' alignment."""
    gate = -(-(4 * 4 + 5 * p + 4) // p) * p
    return -(-(15 * 4) // p) * p + 4 * gate


def kernel_persistent(model: Model, op, sizes: Sizes, kernels: str = "reference") -> List[Tuple[str, int]]:
    """(what, bytes) of each persistent buffer the op's kernel allocates (Init, Prepare)."""
    out: List[Tuple[str, int]] = []
    if op.type in sizes.op_data:
        b = sizes.op_data[op.type]
        if _cmsis_lstm(model, op, kernels):
            # CMSIS-NN's OpData: the reference OpDataLSTM, then its own parameters
            p = sizes.pointer_bytes
            b = -(-b // p) * p + cmsis_lstm_params_bytes(p)
        out.append(("op data", b))
    if _cmsis_lstm(model, op, kernels):
        # CMSIS_NN_PortOpData: each gate's effective biases for the input and for the hidden
        # state, one BiasType (int32; int64 for int16 activations) per cell
        cells = int(model.tensors[op.outputs[0]].shape[-1])
        bias = 8 if model.tensors[op.inputs[0]].dtype == "int16" else 4
        out += [("kernel sums", cells * bias)] * 8
    if op.type in ("CONV_2D", "DEPTHWISE_CONV_2D", "TRANSPOSE_CONV"):
        c = _channels(model, op)
        out.append(("per-channel multipliers", 4 * c))
        out.append(("per-channel shifts", 4 * c))
    if op.type in ("DEPTH_TO_SPACE", "SPACE_TO_DEPTH", "GATHER", "EMBEDDING_LOOKUP", "GATHER_ND"):
        # Prepare's CreateWritableTensorDimsWithCopy: the output's dims as a TfLiteIntArray
        out.append(("output dims", 4 + 4 * len(model.tensors[op.outputs[0]].shape)))
    if op.type == "BATCH_MATMUL":
        out += [(k, b) for k, b, _ in _batch_matmul_buffers(model, op, sizes)]
        return out
    if op.type == "SOFTMAX" and model.tensors[op.inputs[0]].dtype == "int16":
        # softmax_common.cc: an int16 SOFTMAX keeps two 513-entry int16 tables (exp and
        # 1 / (1 + x)), allocated and filled in Prepare
        out += [("lookup tables", 2 * INT16_LUT_ENTRIES)] * 2
    if op.type in sizes.prepare_op_data and (op.type not in _INT8_PREPARE_OP_DATA
                                             or model.tensors[op.outputs[0]].dtype == "int8"):
        out.append(("prepare op data", sizes.prepare_op_data[op.type]))
    return out


def _batch_matmul_buffers(model: Model, op, sizes: Sizes):
    """(kind, bytes, byte ranges written in Prepare) of what batch_matmul.cc's Prepare
    allocates, in order: the quantisation data of an int8 / int16 op (seven ints), a
    TfLiteEvalTensor, its dims and its data for the LHS transposed when adj_x and for the RHS
    transposed unless adj_y (the data written in Eval only), then the output's dims
    (ReshapeOutputTensor's CreateWritableTensorDimsWithCopy)."""
    p = sizes.pointer_bytes
    t = model.tensors
    x, w, y = t[op.inputs[0]], t[op.inputs[1]], t[op.outputs[0]]
    # the temporaries' fields read after each write (0 LHS, 1 RHS, 2 output): the buffers are
    # written as they are allocated, the quantisation data last, field by field
    dims = [(0, "dims"), (1, "dims"), (2, "dims")]
    zps = [(0, "zero_point"), (1, "zero_point"), (2, "zero_point")]
    quantised = x.dtype in ("int8", "int16")
    later = [(0, "allocation_type"), (1, "allocation_type")] + ([(0, "params"), (1, "params"), (2, "params"),
                                                                  (0, "type")] if quantised else []) + dims
    out = []
    if quantised:
        # output multiplier and shift, activation range (after the scales are read), then
        # each zero point just after it is read
        out.append(("prepare op data", 28, [(0, 16, None, [(0, "type")] + zps + dims), (16, 20, None, zps[1:] + dims),
                                            (20, 24, None, zps[2:] + dims), (24, 28, None, dims)]))
    transposes = [(k, operand) for k, (operand, flag) in enumerate(((x, op.options.get("adj_x", False)),
                                                                     (w, not op.options.get("adj_y", False))))
                  if flag]
    for n, (k, operand) in enumerate(transposes):
        d = 4 + 4 * len(operand.shape)
        after = [(k, "dims")] + [(j, "type") for j, _ in transposes[n + 1:]] + \
            [(j, "dims") for j, _ in transposes[n + 1:]] + later
        out += [("transposed operands", 3 * p, [(2 * p, 2 * p + 4, None, [(k, "dims"), (k, "type")] + after),
                                                (p, 2 * p, None, after), (0, p, None, after)]),
                ("transposed operands", d, [(0, d, None, [(k, "type")] + after)]),
                ("transposed operands", operand.nbytes, [(0, 0, None, after)]),
                ]
    d = 4 + 4 * len(y.shape)
    out.append(("output dims", d, [(0, d, None, [(2, "dims")])]))
    return out


#: kInt16LUTArraySize: the entries of each of an int16 SOFTMAX's lookup tables.
INT16_LUT_ENTRIES = 513


#: Ops whose Prepare allocates their OpData for an int8 output only.
_INT8_PREPARE_OP_DATA = ("ADD_N", "LOG_SOFTMAX", "CUMSUM")


def init_data_unused(model: Model, op) -> bool:
    """True where the buffer the op's Init allocates is never read by its Prepare or Eval, so
    that TFLM runs the op when that allocation fails (it returns null): elu.cc's int8 table
    for a float32 ELU (measured: the tiny float32 ELU allocates and runs at 960 to 1,040 B
    without its table, fails at 1,056 to 1,200 B where the table fits at Init and the plan
    then does not, and runs again from 1,216 B)."""
    return op.type == "ELU" and model.tensors[op.outputs[0]].dtype == "float32"


#: TfLiteTypeGetSize by TfLiteType code (common.h), and the codes of the types named here.
TYPE_CODE_SIZES = {0: 0, 1: 4, 2: 4, 3: 1, 4: 8, 6: 1, 7: 2, 8: 8, 9: 1, 10: 2, 11: 8, 12: 16, 13: 8, 16: 4, 17: 2}
TYPE_SIZES = {"float32": 4, "int32": 4, "int64": 8, "bool": 1, "int16": 2, "int8": 1}
TYPE_CODES = {"float32": 1, "int32": 2, "int64": 4, "bool": 6, "int16": 7, "int8": 9}


#: Byte ranges of a TfLiteTensor's fields (TF_LITE_STATIC_MEMORY build: data, dims,
#: params {scale, zero_point}, quantization {type, params}, bytes, type, allocation_type,
#: is_variable), for a pointer size p.
def tensor_fields(p: int) -> Dict[str, Tuple[int, int]]:
    return {"dims": (p, 2 * p), "scale": (2 * p, 2 * p + 4), "params": (2 * p, 2 * p + 8),
            "quantization": (2 * p + 8, 4 * p + 8), "bytes": (4 * p + 8, 5 * p + 8), "type": (5 * p + 8, 5 * p + 12),
            "zero_point": (2 * p + 4, 2 * p + 8), "allocation_type": (5 * p + 12, 5 * p + 16)}


def late_prepare_writes(model: Model, op, sizes: Sizes) -> List[Tuple[int, List[Tuple[int, int]], List[Tuple[int, str]]]]:
    """The persistent buffers the op's Prepare allocates while its temporary TfLiteTensors are
    live, in order: (bytes, the byte ranges of the buffer the kernel writes, the temporaries'
    fields it reads afterwards, as (position in prepare_temp_tensors, field)).

    AllocatePersistentBuffer checks the tail against the head only, not against the
    temporaries (single_arena_buffer_allocator.cc), so these buffers may overlap them: the
    op prepares if and only if no write lands on a field still to be read (those listed,
    and the quantization fields and zero-point pointers DeallocateTempTfLiteTensor reads
    from every temporary). The arena the Prepare needs follows from that, not from the
    buffers' sizes (tests/test_tflm_third_ops.py: the tiny GATHER and EMBEDDING_LOOKUP
    models)."""
    if op.type not in ("GATHER", "EMBEDDING_LOOKUP", "ADD_N", "GATHER_ND", "LOG_SOFTMAX", "CUMSUM", "BATCH_MATMUL",
                       "SOFTMAX"):
        return []
    if op.type == "SOFTMAX":
        if model.tensors[op.inputs[0]].dtype != "int16":
            return []
        # both tables allocated, then filled, before the output's quantisation and the
        # input's type and scale are read (CalculateSoftmaxParams)
        b = 2 * INT16_LUT_ENTRIES
        reads = [(0, "params"), (0, "type"), (1, "params"), (1, "type")]
        return [(b, [(0, b)], reads), (b, [(0, b)], reads)]
    if op.type == "BATCH_MATMUL":
        # every buffer is allocated before the operands' types, dims, quantisation and
        # allocation types and the output's dims are read
        reads = [(k, f) for k in range(3) for f in ("dims", "params", "type")]
        return [(b, writes, reads) for _, b, writes in _batch_matmul_buffers(model, op, sizes)]
    p = sizes.pointer_bytes
    y = model.tensors[op.outputs[0]]
    if op.type == "GATHER":
        # CreateWritableTensorDimsWithCopy: the output's dims copied, then rewritten from the
        # input's and the positions' dims
        d = 4 + 4 * len(y.shape)
        return [(d, [(0, d)], [(0, "dims"), (1, "dims"), (2, "dims")])]
    if op.type == "EMBEDDING_LOOKUP":
        # the output's dims (then the new_dims_size <= output->bytes check and
        # CalculateOpData's reads of the table's type, scale and dims and the output's type),
        # then the OpData: its scale written for an int8 table read into float32, its
        # num_columns (a size_t) always
        # (the check reads the output's type only for its element size: a dims word written
        # over it is harmless when its type code's size is no larger, and then the output no
        # longer reads as float32, so no scale is written)
        d = 4 + 4 * len(y.shape)
        words = (len(y.shape),) + tuple(int(v) for v in y.shape)
        hybrid = model.tensors[op.inputs[1]].dtype == "int8" and y.dtype == "float32"
        return [(d, [(0, d, words)], [(0, "dims"), (1, "dims"), (1, "type"), (1, "scale"), (2, "dims"),
                                      (2, "type", TYPE_SIZES[y.dtype]), (2, "bytes")]),
                (2 * p, ([(0, 4, "float32 output")] if hybrid else []) + [(p, 2 * p)], [(1, "dims")])]
    if op.type == "GATHER_ND":
        # the output's dims copied, then rewritten from the indices' and the params' dims
        d = 4 + 4 * len(y.shape)
        return [(d, [(0, d)], [(0, "dims"), (1, "dims"), (2, "dims")])]
    if op.type == "LOG_SOFTMAX" and y.dtype == "int8":
        # the int8 OpData, before the output's quantisation is checked and the input's scale
        # and dims are read
        b = sizes.prepare_op_data["LOG_SOFTMAX"]
        return [(b, [(0, b)], [(0, "params"), (0, "dims"), (1, "params")])]
    if op.type == "CUMSUM" and y.dtype == "int8":
        # the int8 OpData, before the input's and the output's quantisation and the output's
        # type are read
        return [(36, [(0, 36)], [(0, "params"), (2, "params"), (2, "type")])]
    if op.type == "ADD_N" and y.dtype == "int8":
        # the int8 OpData, written whole, before the first input's and the output's
        # quantisation and the output's type are read
        return [(40, [(0, 40)], [(0, "params"), (1, "params"), (1, "type")])]
    return []


def _conv_geometry(model: Model, op):
    x = model.tensors[op.inputs[0]]
    w = model.tensors[op.inputs[1]]
    return x.shape, w.shape


def kernel_scratch(model: Model, op, kernels: str, pointer_bytes: int = 8) -> List[Tuple[str, int]]:
    """(what, bytes) of each RequestScratchBufferInArena of the op's Prepare."""
    t = model.tensors
    if op.type == "ADD_N":
        # add_n.cc: one data pointer per input (float32 and int8 alike)
        return [("input pointers", pointer_bytes * len(op.inputs))]
    if op.type == "SVDF":
        x, w = t[op.inputs[0]], t[op.inputs[1]]
        rank = int(op.options.get("rank", 1)) or 1
        batch, filters = int(x.shape[0]), int(w.shape[0])
        return [("int32 filter activations", batch * filters * 4),
                ("int32 output accumulators", batch * (filters // rank) * 4)]
    if op.type == "UNIDIRECTIONAL_SEQUENCE_LSTM":
        x, y = t[op.inputs[0]], t[op.outputs[0]]
        batch = int(x.shape[1] if op.options.get("time_major", False) else x.shape[0])
        cells = int(y.shape[-1])
        cell_bytes = 4 if t[op.inputs[19]].dtype == "float32" else 2
        # CMSIS-NN's own LSTM asks for three (two gate buffers and the cell state's copy)
        n = 3 if _cmsis_lstm(model, op, kernels) else 4
        return [(f"gate buffer {k}", batch * cells * cell_bytes) for k in range(n)]
    if op.type == "TRANSPOSE_CONV":
        # transpose_conv.cc Prepare: one accumulator per output element, int32 for int8
        # activations and int64 for 16x8 (under CMSIS-NN a prediction: its kernel's
        # buffers are not described here, the reference's are assumed)
        y = t[op.outputs[0]]
        if y.dtype == "float32":
            return []                                   # float32: no accumulators
        return [("accumulators", int(np.prod(y.shape)) * (8 if y.dtype == "int16" else 4))]
    if op.type in ("MEAN", "SUM"):
        return _mean_scratch(model, op)
    if op.type in ("REDUCE_MAX", "REDUCE_MIN", "REDUCE_ALL"):
        x, a = t[op.inputs[0]], t[op.inputs[1]]
        return [("input dimensions", 4 * len(x.shape)), ("resolved axes", 4 * int(np.prod(a.shape)))]
    if op.type == "MIRROR_PAD":
        n = 4 * len(t[op.inputs[0]].shape)
        return [("output strides", n), ("input strides", n)]
    if kernels != "cmsis-nn":
        return []
    # CMSIS-NN (DSP extension, Cortex-M4/M7/M33): arm_*_get_buffer_size
    if op.type == "CONV_2D":
        xs, ws = _conv_geometry(model, op)
        kh, kw, cin = int(ws[1]), int(ws[2]), int(ws[3])
        pad_same = op.options.get("padding", "VALID") == "SAME"
        strides = (op.options.get("stride_h", 1), op.options.get("stride_w", 1))
        if kh == 1 and kw == 1 and not (pad_same and False) and strides == (1, 1) and cin % 4 == 0:
            return []                                   # arm_convolve_1x1_s8_fast
        return [("im2col (int16)", 2 * cin * kh * kw * 2)]   # arm_convolve_s8_get_buffer_size
    if op.type == "DEPTHWISE_CONV_2D":
        xs, ws = _conv_geometry(model, op)
        kh, kw = int(ws[1]), int(ws[2])
        cin, cout = int(xs[-1]), int(ws[3])
        if cin != cout:
            return []                                   # arm_depthwise_conv_s8 (generic)
        if kh == 3 and kw == 3:
            return []                                   # arm_depthwise_conv_3x3_s8
        return [("im2col (int16)", cin * kh * kw * 2)]  # arm_depthwise_conv_s8_opt_get_buffer_size
    if op.type == "AVERAGE_POOL_2D":
        return [("int32 row sums", int(t[op.inputs[0]].shape[-1]) * 4)]   # arm_avgpool_s8_get_buffer_size
    return []



def _mean_scratch(model: Model, op) -> List[Tuple[str, int]]:
    """reduce_common.cc PrepareMeanOrSum: an int8/int16 MEAN or SUM sums into an int32 per
    output element (float32: no sums), and resolves its axes and the input's dimensions into
    int buffers."""
    x, a, y = (model.tensors[i] for i in (op.inputs[0], op.inputs[1], op.outputs[0]))
    sums = [("int32 sums", 4 * int(np.prod(y.shape)))] if x.dtype in ("int8", "int16") else []
    return sums + [("input dimensions", 4 * len(x.shape)), ("resolved axes", 4 * int(np.prod(a.shape)))]


@dataclass(frozen=True)
class TflmOp:
    """One op as TFLM's graph holds it (arenaplan keeps a SPLIT as one op per output)."""

    index: int
    type: str
    inputs: Tuple[int, ...]
    outputs: Tuple[int, ...]
    options: dict
    is_custom: bool = False
    custom_code: str = None


def tflm_ops(model: Model) -> List[TflmOp]:
    """The model's ops as the file (and TFLM) holds them, in order."""
    if hasattr(model, "subgraph_ops"):      # a FileGraph: already TFLM's ops
        return list(model.ops)
    out: List[TflmOp] = []
    for op in model.operators:
        src = op.options.get("source_op") if op.type in PER_OUTPUT_OPS else None
        if src is not None and out and out[-1].index == src and out[-1].type == op.type:
            prev = out[-1]
            out[-1] = TflmOp(prev.index, prev.type, prev.inputs, prev.outputs + tuple(op.outputs), prev.options)
            continue
        out.append(TflmOp(len(out), op.type, tuple(op.inputs), tuple(op.outputs), dict(op.options),
                          op.is_custom, op.custom_code))
    return out


def lifetimes(model: Model) -> Tuple[Dict[int, int], Dict[int, int]]:
    """TFLM's first-created / last-used op of every tensor (micro_allocation_info.cc)."""
    if hasattr(model, "subgraph_ops"):      # a FileGraph: its scopes are marked already
        return model.first, model.last
    ops = tflm_ops(model)
    n = len(ops)
    first: Dict[int, int] = {i: 0 for i in model.inputs}
    last: Dict[int, int] = {}
    for k, op in enumerate(ops):
        for i in op.inputs:
            if i >= 0:
                last[i] = k
        for i in op.outputs:
            first.setdefault(i, k)
    for i in model.outputs:
        last[i] = n - 1
    return first, last
