"""Generates test/foreign/jax: jax.export shape-polymorphic modules, their inputs and jax's outputs.

Run once, with jax installed in a separate venv (jax is not a symhlo dependency):

    python3.11 -m venv /tmp/jaxvenv && /tmp/jaxvenv/bin/pip install jax jaxlib numpy
    /tmp/jaxvenv/bin/python scripts/gen_jax_corpus.py            # writes test/foreign/jax/

For each case it writes NAME.mlir (`jax.export(...).mlir_module()`, exactly as jax gives it: shape
assertions, private helper functions, dynamic_* ops) and NAME.npz holding, for every size in the
case's list, the inputs `s{k}_in{i}` and jax's outputs `s{k}_out{j}` (jax runs the function on CPU).
Cases with a `bad` call also store its inputs `bad_in{i}` and the message jax raises for it
(`bad_message`): symhlo must raise ShapeError with that message.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import jax
import jax.numpy as jnp
from jax import export, lax

jax.config.update("jax_platforms", "cpu")

RNG = np.random.default_rng(0)


def w(*shape):
    """A small constant weight, baked into the exported module."""
    return jnp.asarray(RNG.standard_normal(shape).astype(np.float32) * 0.5)


W1, B1, W2, B2 = w(16, 32), w(32), w(32, 8), w(8)
GAMMA, BETA = w(16), w(16)
WQ, WK, WV = w(16, 16), w(16, 16), w(16, 16)
KERNEL = w(4, 3, 3, 3)
TABLE = w(10, 8)
KERNEL_HWIO = w(3, 3, 3, 4)
CNN_K1, CNN_K2, CNN_SCALE, CNN_SHIFT, CNN_DENSE = w(3, 3, 3, 8), w(3, 3, 8, 16), w(16), w(16), w(16, 10)
NHWC = ("NHWC", "HWIO", "NHWC")


def mlp(x):
    return jax.nn.relu(x @ W1 + B1) @ W2 + B2


def layer_norm(x):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / jnp.sqrt(var + 1e-5) * GAMMA + BETA


def causal_attention(x):
    n = x.shape[1]
    q, k, v = x @ WQ, x @ WK, x @ WV
    s = jnp.einsum("bqd,bkd->bqk", q, k) / 4.0
    i = lax.broadcasted_iota(jnp.int32, (n, n), 0)
    j = lax.broadcasted_iota(jnp.int32, (n, n), 1)
    s = jnp.where(j <= i, s, -1e9)
    return jnp.einsum("bqk,bkd->bqd", jax.nn.softmax(s, axis=-1), v)


def reshape(x):
    b, n, _ = x.shape
    return x.reshape(b, n * 4) * 2.0, x.reshape(b * n, 4).sum(-1)


def concat(x, y):
    return jnp.concatenate([x, y], axis=1), jnp.concatenate([x, x], axis=0)


def slices(x):
    b = x.shape[0]
    return x[:, 1:], x[: b // 2], x[:, ::2], x[:, -1]


def gather(idx):
    return TABLE[idx], jnp.take(TABLE, idx[: idx.shape[0] - 1], axis=0).sum(0)


def conv(x):
    same = lax.conv_general_dilated(x, KERNEL, (1, 1), "SAME")
    strided = lax.conv_general_dilated(x, KERNEL, (2, 2), "VALID")
    same_strided = lax.conv_general_dilated(x, KERNEL, (2, 2), "SAME")  # padding from h, w: dynamic_conv
    return same, strided, same_strided


def max_pool(x):
    valid = lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
    same = lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 3, 3), (1, 1, 2, 2), "SAME")  # padding from h, w
    return valid, same


def conv_nhwc(x):
    """jax's own layout: channels-last input and output, an HWIO kernel."""
    same = lax.conv_general_dilated(x, KERNEL_HWIO, (1, 1), "SAME", dimension_numbers=NHWC)
    strided = lax.conv_general_dilated(x, KERNEL_HWIO, (2, 2), "VALID", dimension_numbers=NHWC)
    same_strided = lax.conv_general_dilated(x, KERNEL_HWIO, (2, 2), "SAME", dimension_numbers=NHWC)
    dilated = lax.conv_general_dilated(x, KERNEL_HWIO, (1, 1), ((2, 2), (1, 1)), rhs_dilation=(2, 1),
                                       dimension_numbers=NHWC)
    return same, strided, same_strided, dilated


def max_pool_nhwc(x):
    valid = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    same = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")  # padding from h, w
    rows = lax.reduce_window(x, 0.0, lax.add, (1, 3, 1, 1), (1, 1, 1, 1), ((0, 0), (1, 1), (0, 0), (0, 0)))
    return valid, same, rows


def cnn_nhwc(x):
    """A small channels-last CNN: conv, relu, max pool, conv, batchnorm (inference), relu, global
    average pool, dense."""
    y = jax.nn.relu(lax.conv_general_dilated(x, CNN_K1, (1, 1), "SAME", dimension_numbers=NHWC))
    y = lax.reduce_window(y, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    y = lax.conv_general_dilated(y, CNN_K2, (1, 1), "SAME", dimension_numbers=NHWC)
    y = jax.nn.relu(y * CNN_SCALE + CNN_SHIFT)
    return y.mean(axis=(1, 2)) @ CNN_DENSE


def cumsum(x):
    return jnp.cumsum(x, axis=1), jnp.cumsum(x, axis=0)


def pad(x):
    n = x.shape[1]
    return jnp.pad(x, ((0, 0), (0, (8 - n % 8) % 8))), jnp.pad(x, ((1, 2), (0, 0)))


def add_shared(x, y):
    return x * y + 1.0


def pairs(x):
    k = x.shape[0] // 2
    return x.reshape(k, 8)


f32, i32 = np.float32, np.int32

# name -> (function, polymorphic shapes, dtypes, sizes: one dict of symbol values per call,
#          optional bad call: shapes of inputs that break a shape assertion)
CASES = {
    "matmul": (lambda x, y: x @ y, ["b, 8", "8, n"], [f32, f32],
               [dict(b=1, n=5), dict(b=3, n=1), dict(b=6, n=7)], None),
    "mlp": (mlp, ["b, 16"], [f32], [dict(b=1), dict(b=5)], None),
    "softmax": (lambda x: jax.nn.softmax(x, axis=-1), ["b, n"], [f32],
                [dict(b=1, n=1), dict(b=2, n=7), dict(b=5, n=3)], None),
    "layer_norm": (layer_norm, ["b, n, 16"], [f32], [dict(b=1, n=3), dict(b=2, n=1), dict(b=3, n=5)], None),
    "causal_attention": (causal_attention, ["b, n, 16"], [f32],
                         [dict(b=1, n=1), dict(b=2, n=5), dict(b=3, n=9)], None),
    "reshape": (reshape, ["b, n, 4"], [f32], [dict(b=1, n=3), dict(b=4, n=1), dict(b=2, n=6)], None),
    "concat": (concat, ["b, n", "b, m"], [f32, f32],
               [dict(b=1, n=2, m=3), dict(b=3, n=1, m=4), dict(b=4, n=5, m=1)], [(3, 2), (4, 3)]),
    "slices": (slices, ["b, n"], [f32], [dict(b=1, n=2), dict(b=5, n=3), dict(b=8, n=6)], None),
    "gather": (gather, ["b"], [i32], [dict(b=1), dict(b=4), dict(b=7)], None),
    "conv": (conv, ["b, 3, h, w"], [f32], [dict(b=1, h=3, w=5), dict(b=2, h=8, w=6)], None),
    "max_pool": (max_pool, ["b, 3, h, w"], [f32], [dict(b=1, h=2, w=5), dict(b=2, h=7, w=4)], None),
    "conv_nhwc": (conv_nhwc, ["b, h, w, 3"], [f32], [dict(b=1, h=3, w=5), dict(b=2, h=8, w=6),
                                                     dict(b=3, h=5, w=3)], None),
    "max_pool_nhwc": (max_pool_nhwc, ["b, h, w, 3"], [f32], [dict(b=1, h=2, w=5), dict(b=2, h=7, w=4),
                                                             dict(b=3, h=4, w=9)], None),
    "cnn_nhwc": (cnn_nhwc, ["b, h, w, 3"], [f32], [dict(b=1, h=2, w=3), dict(b=2, h=9, w=6),
                                                   dict(b=4, h=16, w=12)], None),
    "cumsum": (cumsum, ["b, n"], [f32], [dict(b=1, n=4), dict(b=3, n=1), dict(b=5, n=6)], None),
    "pad": (pad, ["b, n"], [f32], [dict(b=1, n=3), dict(b=2, n=8), dict(b=3, n=13)], None),
    "add_shared": (add_shared, ["b, n", "b, n"], [f32, f32], [dict(b=1, n=3), dict(b=4, n=1)],
                   [(2, 3), (2, 4)]),
    "pairs": (pairs, ["2*k, 4"], [f32], [dict(k=1), dict(k=3)], [(5, 4)]),
}


def concrete(spec: str, env: dict) -> tuple[int, ...]:
    return tuple(int(eval(d, {}, dict(env))) for d in spec.split(","))


def make_input(shape, dtype):
    if dtype == i32:
        return RNG.integers(0, 10, size=shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def generate(name: str, out: Path) -> None:
    fn, specs, dtypes, sizes, bad = CASES[name]
    scope = export.SymbolicScope()
    args = [jax.ShapeDtypeStruct(export.symbolic_shape(s, scope=scope), d) for s, d in zip(specs, dtypes)]
    exp = export.export(jax.jit(fn))(*args)
    (out / f"{name}.mlir").write_text(exp.mlir_module())
    arrays = {}
    for k, env in enumerate(sizes):
        ins = [make_input(concrete(s, env), d) for s, d in zip(specs, dtypes)]
        outs = exp.call(*ins)
        outs = outs if isinstance(outs, (tuple, list)) else (outs,)
        for i, a in enumerate(ins):
            arrays[f"s{k}_in{i}"] = a
        for j, o in enumerate(outs):
            arrays[f"s{k}_out{j}"] = np.asarray(o)
    if bad is not None:
        ins = [make_input(s, d) for s, d in zip(bad, dtypes)]
        try:
            exp.call(*ins)
        except Exception as e:  # jax's own shape check on the call: the message symhlo must give
            arrays["bad_message"] = np.array(str(e))
        else:
            raise SystemExit(f"{name}: the bad call {bad} did not fail in jax")
        for i, a in enumerate(ins):
            arrays[f"bad_in{i}"] = a
    np.savez_compressed(out / f"{name}.npz", **arrays)
    print(f"{name}: {len(sizes)} sizes, {(out / f'{name}.mlir').stat().st_size} bytes of MLIR")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "test" / "foreign" / "jax"))
    p.add_argument("names", nargs="*", help="cases to generate (default: all)")
    a = p.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"jax {jax.__version__}")
    for name in a.names or CASES:
        generate(name, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
