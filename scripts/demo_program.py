#!/usr/bin/env python3
"""The program `make demo` profiles: a tiny MLP trained for a few steps with JAX on CPU.

It runs under jax.profiler.trace, which writes what a real JAX user gets:
LOGDIR/plugins/profile/<timestamp>/<host>.xplane.pb (the XSpace profq reads) and,
with create_perfetto_trace=True, a Perfetto trace beside it. Several XLA modules are
compiled on purpose (parameter init, the jitted training step, a lax.scan loop,
an evaluation, and an inference loop run_scan whose carry holds a KV cache at indices
2 and 3, which `profq memory` attributes), so the profile's /host:metadata plane carries several HloProtos.

Usage: demo_program.py LOGDIR
"""

import os
import sys

# CPU only, quietly: the demo must behave the same on any machine (no GPU here).
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import jax  # noqa: E402  (after the environment is set)
import jax.numpy as jnp  # noqa: E402

LAYERS = (16, 32, 32, 4)  # input, two hidden, output widths
STEPS = 5
SCAN_STEPS = 8
LEARNING_RATE = 0.05


def init_params(key):
    """One (weights, bias) pair per layer, scaled so activations stay O(1)."""
    params = []
    for n_in, n_out in zip(LAYERS[:-1], LAYERS[1:]):
        key, sub = jax.random.split(key)
        w = jax.random.normal(sub, (n_in, n_out)) / jnp.sqrt(n_in)
        params.append((w, jnp.zeros(n_out)))
    return params


def forward(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def loss_fn(params, x, y):
    return jnp.mean((forward(params, x) - y) ** 2)


@jax.jit
def train_step(params, x, y):
    """One SGD step: the module a training loop would run over and over."""
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    params = jax.tree_util.tree_map(lambda p, g: p - LEARNING_RATE * g, params, grads)
    return params, loss


@jax.jit
def train_scan(params, xs, ys):
    """SCAN_STEPS steps fused into one XLA module with lax.scan (a while loop in HLO)."""

    def body(p, batch):
        p, loss = train_step(p, *batch)
        return p, loss

    return jax.lax.scan(body, params, (xs, ys))


@jax.jit
def evaluate(params, x, y):
    return loss_fn(params, x, y)


KV_SHAPE = (2, 4, 64, 32)  # (k/v layer, batch, sequence, head dim): 64 KiB each in f32


@jax.jit
def run_scan(params, init_carry):
    """Inference decoding loop in the seed's shape: the scan carry is
    (x, step, k_cache, v_cache), so the KV cache is init_carry[2] and init_carry[3]."""
    w_in, w_out = params["w_in"], params["w_out"]

    def step(carry, _):
        x, t, k, v = carry
        h = jnp.tanh(x @ w_in)
        kv = h[:, : KV_SHAPE[3]]
        k = jax.lax.dynamic_update_slice(k, kv[None, :, None, :], (0, 0, t, 0))
        v = jax.lax.dynamic_update_slice(v, (2 * kv)[None, :, None, :], (1, 0, t, 0))
        att = jnp.einsum("bk,lbsk->bs", kv, k + v)
        return (h @ w_out + att[:, : x.shape[1]], t + 1, k, v), None

    carry, _ = jax.lax.scan(step, init_carry, None, length=8)
    return carry


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: demo_program.py LOGDIR")
    logdir = sys.argv[1]

    key = jax.random.PRNGKey(0)
    kx, ky, kp = jax.random.split(key, 3)
    batch = 64
    x = jax.random.normal(kx, (batch, LAYERS[0]))
    y = jax.random.normal(ky, (batch, LAYERS[-1]))
    xs = jax.random.normal(kx, (SCAN_STEPS, batch, LAYERS[0]))
    ys = jax.random.normal(ky, (SCAN_STEPS, batch, LAYERS[-1]))

    with jax.profiler.trace(logdir, create_perfetto_trace=True):
        params = init_params(kp)
        for step in range(STEPS):
            # StepTraceAnnotation marks each step so step-aware tools can find them.
            with jax.profiler.StepTraceAnnotation("train", step_num=step):
                params, loss = train_step(params, x, y)
                loss.block_until_ready()
        params, losses = train_scan(params, xs, ys)
        final = evaluate(params, x, y).block_until_ready()
        inf_params = {"w_in": jnp.ones((64, 128)) * 0.01, "w_out": jnp.ones((128, 64)) * 0.01}
        init_carry = (jnp.ones((4, 64)), jnp.int32(0), jnp.zeros(KV_SHAPE), jnp.zeros(KV_SHAPE))
        run_scan(inf_params, init_carry)[0].block_until_ready()

    print(f"demo: {STEPS} jitted steps (loss {float(loss):.4f}), {SCAN_STEPS} scanned steps "
          f"(last loss {float(losses[-1]):.4f}), eval loss {float(final):.4f}")
    print(f"demo: JAX {jax.__version__} on {jax.devices()[0].platform}; profile written "
          f"under {logdir}")


if __name__ == "__main__":
    main()
