"""NumPy reference of TensorFlow Lite's integer UNIDIRECTIONAL_SEQUENCE_LSTM ("8x8_16").

It follows LiteRT's lstm_eval.cc EvalInteger8x8_16 / LstmStepInteger8x8_16 and the portable
tensor_utils it calls, step by step and on whole gate vectors as TFLite does:

* each gate starts at zero and accumulates two MatrixBatchVectorMultiplyAccumulate terms,
  input x and previous output state h, each requantised on its own and added with an int16
  clamp: gate = clamp16(MBQM(b_x + W_x x) + clamp16(MBQM(b_h + W_h h)...)) (the effective
  biases b_x / b_h hold the gate bias and the zero points folded in, as Prepare computes);
* sigmoid (input, forget, output gates) and tanh (cell gate) with gemmlowp's int16 fixed point,
  Q3.12 in, Q0.15 out;
* the cell update: c = RDBPOT(f * c, 15) + RDBPOT(i * g, 30 + cell_scale) (int16 casts that
  wrap, an add that saturates), then the clip to [-clip, clip] when clip > 0;
* the hidden state: h = clamp8(MBQM(o * tanh(c), hidden multiplier) + hidden zero point), with
  tanh reading the cell state as Q(15 + cell_scale).

No CIFG, peephole, projection or layer norm (none of the project's models use them). All
values are int64 NumPy arrays with int16 / int32 wrap-around written out. The C kernel is
tested against this bit for bit, and this against LiteRT on real and generated models.
"""
from __future__ import annotations

import numpy as np

from .quant import multiply_by_quantized_multiplier, rounding_divide_by_pot

__all__ = ["sigmoid_q3", "tanh_q", "prepare_biases", "lstm", "GATES"]

#: Gate order of TFLite's operand lists (input, forget, cell, output).
GATES = ("input", "forget", "cell", "output")

INT16_MIN, INT16_MAX = -32768, 32767


def _w16(x):
    """Wrap to int16 (what a static_cast<int16_t> or an int16 add does in practice)."""
    x = np.asarray(x, dtype=np.int64)
    return ((x + 32768) & 0xFFFF) - 32768


def _w32(x):
    x = np.asarray(x, dtype=np.int64)
    return ((x + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def _sat16(x):
    return np.clip(np.asarray(x, dtype=np.int64), INT16_MIN, INT16_MAX)


def _trunc_div(num, den: int):
    """C integer division (truncation toward zero)."""
    num = np.asarray(num, dtype=np.int64)
    return np.where(num >= 0, num // den, -((-num) // den))


def _srdhm16(a, b):
    """gemmlowp SaturatingRoundingDoublingHighMul<int16_t>."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    ab = a * b
    nudge = np.where(ab >= 0, 1 << 14, 1 - (1 << 14))
    out = _w16(_trunc_div(ab + nudge, 1 << 15))
    return np.where((a == INT16_MIN) & (b == INT16_MIN), INT16_MAX, out)


def _rdbpot(x, exponent: int):
    return rounding_divide_by_pot(x, exponent)


def _sat_shl16(x, exponent: int):
    """gemmlowp SaturatingRoundingMultiplyByPOT<exponent > 0> on int16."""
    if exponent == 0:
        return np.asarray(x, dtype=np.int64)
    threshold = (1 << (15 - exponent)) - 1
    x = np.asarray(x, dtype=np.int64)
    return np.where(x > threshold, INT16_MAX,
                    np.where(x < -threshold, INT16_MIN, _w16(x << exponent)))


def _const16(raw32: int) -> int:
    """gemmlowp RescaleConstantInitializer: an int32 raw constant rounded to int16."""
    return int(_rdbpot(np.int64(raw32), 16))


def _exp_quarter16(a):
    """exp(a) for a in [-1/4, 0), Q0.15 in and out."""
    const_term = _const16(1895147668)
    one_third = _const16(715827883)
    x = _w16(a + (1 << 12))
    x2 = _srdhm16(x, x)
    x3 = _srdhm16(x2, x)
    x4 = _srdhm16(x2, x2)
    x4_over_4 = _rdbpot(x4, 2)
    poly = _rdbpot(_w16(_srdhm16(_w16(x4_over_4 + x3), one_third) + x2), 1)
    return _sat16(const_term + _srdhm16(const_term, _w16(x + poly)))


_EXP_MULTIPLIERS = ((-2, 1672461947), (-1, 1302514674), (0, 790015084), (1, 290630308),
                    (2, 39332535), (3, 720401), (4, 242))


def _exp_on_negative16(a, integer_bits: int):
    """gemmlowp exp_on_negative_values<int16_t, integer_bits>: Q0.15 result."""
    a = np.asarray(a, dtype=np.int64)
    frac = 15 - integer_bits
    quarter = 1 << (frac - 2)
    amq = _w16((a & (quarter - 1)) - quarter)
    result = _exp_quarter16(_sat_shl16(amq, integer_bits))
    remainder = _w16(amq - a)
    for exponent, multiplier in _EXP_MULTIPLIERS:
        if integer_bits > exponent:
            bit = (remainder & (1 << (frac + exponent))) != 0
            result = np.where(bit, _srdhm16(result, _const16(multiplier)), result)
    if integer_bits > 5:
        clamp = _const16(-(1 << (36 - integer_bits)))
        result = np.where(a < clamp, 0, result)
    return np.where(a == 0, INT16_MAX, result)


def _newton_reciprocal16(half_denominator):
    """The three Newton-Raphson steps gemmlowp shares between 1/(1+x) and (1-x)/(1+x); Q2.13."""
    x = _w16(_const16(1515870810) + _srdhm16(half_denominator, _const16(-1010580540)))
    for _ in range(3):
        one_minus = _w16((1 << 13) - _srdhm16(half_denominator, x))
        x = _w16(x + _sat_shl16(_srdhm16(x, one_minus), 2))
    return x


def _half_sum_with_one16(a):
    """gemmlowp RoundingHalfSum<int16_t>(a, One())."""
    s = np.asarray(a, dtype=np.int64) + INT16_MAX
    return _w16(_trunc_div(s + np.where(s >= 0, 1, -1), 2))


def sigmoid_q3(x):
    """TFLite PortableApplySigmoid: gemmlowp logistic, Q3.12 int16 in, Q0.15 int16 out."""
    x = np.asarray(x, dtype=np.int64)
    positive = x > 0
    abs_x = np.where(positive, x, _w16(-x))
    e = _exp_on_negative16(_w16(-abs_x), 3)
    if_positive = _sat_shl16(_newton_reciprocal16(_half_sum_with_one16(e)), 1)
    if_negative = _w16(INT16_MAX - if_positive)
    return np.where(x == 0, 1 << 14, np.where(positive, if_positive, if_negative))


def tanh_q(x, integer_bits: int):
    """TFLite PortableApplyTanh<integer_bits>: gemmlowp tanh, Q(ib).(15-ib) in, Q0.15 out."""
    if not 0 <= integer_bits <= 6:
        raise ValueError(f"integer_bits {integer_bits} outside [0, 6]")
    x = np.asarray(x, dtype=np.int64)
    negative = x < 0
    n = np.where(negative, x, _w16(-x))
    e = _exp_on_negative16(n, integer_bits + 1)
    t = _sat_shl16(_w16(_newton_reciprocal16(_half_sum_with_one16(e)) - (1 << 13)), 2)
    return np.where(x == 0, 0, np.where(negative, _w16(-t), t))


def prepare_biases(input_weights, recurrent_weights, biases, input_zero_point: int,
                   output_state_zero_point: int):
    """PopulatePrecomputedZPTimesWeightsWithBias: per gate, the input-side effective bias
    bias - input_zp * rowsum(W_x) and the recurrent-side one -output_state_zp * rowsum(W_h)
    (int32, wrapping)."""
    eff_x, eff_h = [], []
    for g in range(4):
        wx = np.asarray(input_weights[g], dtype=np.int64)
        wh = np.asarray(recurrent_weights[g], dtype=np.int64)
        b = np.zeros(wx.shape[0], np.int64) if biases[g] is None else np.asarray(biases[g], np.int64)
        eff_x.append(_w32(b + _w32(wx.sum(axis=1) * -int(input_zero_point))))
        eff_h.append(_w32(wh.sum(axis=1) * -int(output_state_zero_point)))
    return eff_x, eff_h


def _gate(x, h, wx, wh, bx, bh, mx, sx, mh, sh):
    """CalculateLstmGateInteger8x8_16 up to the activation, for a batch of rows."""
    acc = _w32(bx[None, :] + x @ wx.T)
    gate = _sat16(multiply_by_quantized_multiplier(acc, mx, sx))
    acc = _w32(bh[None, :] + h @ wh.T)
    return _sat16(_w32(multiply_by_quantized_multiplier(acc, mh, sh) + gate))


def lstm(x, input_weights, recurrent_weights, biases, p: dict, output_state, cell_state,
         time_major: bool = False):
    """Run the integer LSTM over a sequence.

    x: int8 [batch, time, n_input] (or [time, batch, n_input] when time_major).
    input_weights / recurrent_weights: 4 int8 matrices each ([n_cell, n_input] / [n_cell, n_cell]),
    gate order input, forget, cell, output; biases: 4 int32 [n_cell] (or None).
    p: input_zero_point, output_state_zero_point, hidden_zero_point, input_multiplier[4],
    input_shift[4], recurrent_multiplier[4], recurrent_shift[4], hidden_multiplier,
    hidden_shift, cell_scale_log2, cell_clip (0 = none).
    output_state: int8 [batch, n_cell]; cell_state: int16 [batch, n_cell] (not modified).
    Returns (output int8 like x with n_cell last, new output_state, new cell_state).
    """
    x = np.asarray(x, dtype=np.int64)
    if time_major:
        x = x.transpose(1, 0, 2)
    batch, steps, _ = x.shape
    wx = [np.asarray(w, dtype=np.int64) for w in input_weights]
    wh = [np.asarray(w, dtype=np.int64) for w in recurrent_weights]
    n_cell = wx[0].shape[0]
    bx, bh = prepare_biases(wx, wh, biases, p["input_zero_point"], p["output_state_zero_point"])
    h = np.asarray(output_state, dtype=np.int64).reshape(batch, n_cell).copy()
    c = np.asarray(cell_state, dtype=np.int64).reshape(batch, n_cell).copy()
    out = np.zeros((batch, steps, n_cell), dtype=np.int64)
    cell_scale = int(p["cell_scale_log2"])
    clip = int(p["cell_clip"])
    for t in range(steps):
        pre = [_gate(x[:, t, :], h, wx[g], wh[g], bx[g], bh[g],
                     p["input_multiplier"][g], p["input_shift"][g],
                     p["recurrent_multiplier"][g], p["recurrent_shift"][g]) for g in range(4)]
        i_gate, f_gate, o_gate = sigmoid_q3(pre[0]), sigmoid_q3(pre[1]), sigmoid_q3(pre[3])
        g_gate = tanh_q(pre[2], 3)
        # UpdateLstmCellInteger
        c = _w16(_rdbpot(f_gate * c, 15))
        c = _sat16(c + _w16(_rdbpot(i_gate * g_gate, 30 + cell_scale)))
        if clip > 0:
            c = np.clip(c, -clip, clip)
        # CalculateLstmOutputInteger8x8_16 (no projection): the output state is the hidden state
        hidden = multiply_by_quantized_multiplier(o_gate * tanh_q(c, 15 + cell_scale),
                                                  p["hidden_multiplier"], p["hidden_shift"])
        h = np.clip(hidden + int(p["hidden_zero_point"]), -128, 127)
        out[:, t, :] = h
    if time_major:
        out = out.transpose(1, 0, 2)
    return out.astype(np.int8), h.astype(np.int8), c.astype(np.int16)
