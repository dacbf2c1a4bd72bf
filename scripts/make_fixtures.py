"""Writes profq's own JAX-on-CPU fixtures (tests/fixtures/jax_cpu/) and what the script
knows it created (expect.json), for the attribution tests.

    build/venv-fixtures/bin/python scripts/make_fixtures.py OUT_DIR

Two programs, each run under jax.profiler.trace with XLA dumping HloProtos
(--xla_dump_to --xla_dump_hlo_as_proto):
  inference: jit(run_scan)(params, init_carry), a lax.scan whose carry is
             (x, step, k_cache, v_cache): the KV cache at carry indices 2 and 3, the
             seed's shape;
  training:  a few steps of jit(train_step)(params, opt_state, batch) with optax Adam,
             the gradient computed under jax.named_scope("grads") and the update under
             jax.named_scope("adam_optimizer") (names the seed's gradient regex finds).
Kept: the optimized HloProto of run_scan / train_step (with buffer assignment and heap
simulator traces) from the dump, and the XPlane when it is small. Sizes are chosen so every
array is at least 16 KiB (the memory viewer's "small" threshold).
"""
import glob
import json
import os
import shutil
import sys
import tempfile

out = os.path.abspath(sys.argv[1])
dump = tempfile.mkdtemp(prefix="profq-fixtures-dump-")
os.environ["XLA_FLAGS"] = f"--xla_dump_to={dump} --xla_dump_hlo_as_proto"
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import optax  # noqa: E402

D, H, B, S, KV = 64, 128, 4, 64, 32
F32 = 4


def inference():
    params = {"w_in": jnp.ones((D, H), jnp.float32) * 0.01,
              "w_out": jnp.ones((H, D), jnp.float32) * 0.01}
    k_cache = jnp.zeros((2, B, S, KV), jnp.float32)
    v_cache = jnp.zeros((2, B, S, KV), jnp.float32)
    init_carry = (jnp.ones((B, D), jnp.float32), jnp.int32(0), k_cache, v_cache)

    def run_scan(params, init_carry):
        def step(carry, _):
            x, t, k, v = carry
            h = jnp.tanh(x @ params["w_in"])
            y = h @ params["w_out"]
            kv = h[:, :KV]
            k = jax.lax.dynamic_update_slice(k, kv[None, :, None, :], (0, 0, t, 0))
            v = jax.lax.dynamic_update_slice(v, (kv * 2)[None, :, None, :], (1, 0, t, 0))
            att = jnp.einsum("bk,lbsk->bs", kv, k + v)
            return (y + att[:, :D], t + 1, k, v), None

        carry, _ = jax.lax.scan(step, init_carry, None, length=8)
        return carry

    f = jax.jit(run_scan)
    f(params, init_carry)[0].block_until_ready()
    return f, (params, init_carry), {
        "kv_cache_bytes": 2 * (2 * B * S * KV * F32),
        "model_params_bytes": D * H * F32 + H * D * F32,
        "other_carry_state_bytes_at_least": B * D * F32,
    }


def training():
    params = {"w1": jnp.ones((D, H), jnp.float32) * 0.01,
              "w2": jnp.ones((H, D), jnp.float32) * 0.01}
    opt = optax.adam(1e-3)
    opt_state = opt.init(params)
    batch = jnp.ones((B * 16, D), jnp.float32)

    def loss_fn(p, x):
        return jnp.mean((jnp.tanh(x @ p["w1"]) @ p["w2"] - x) ** 2)

    def train_step(params, opt_state, batch):
        with jax.named_scope("grads"):
            loss, grads = jax.value_and_grad(loss_fn)(params, batch)
        with jax.named_scope("adam_optimizer"):
            updates, opt_state = opt.update(grads, opt_state, params)
            params = optax.apply_updates(params, updates)
        return params, opt_state, loss

    f = jax.jit(train_step)
    for _ in range(3):
        params, opt_state, loss = f(params, opt_state, batch)
    loss.block_until_ready()
    return f, None, {"model_params_bytes": D * H * F32 + H * D * F32,
                     "adam_state_bytes": 2 * (D * H * F32 + H * D * F32)}


def main():
    os.makedirs(out, exist_ok=True)
    expect = {}
    for name, fn, module in (("inference", inference, "run_scan"),
                             ("training", training, "train_step")):
        logdir = tempfile.mkdtemp(prefix=f"profq-fixtures-{name}-")
        with jax.profiler.trace(logdir):
            _, _, known = fn()
        dst = os.path.join(out, name)
        shutil.rmtree(dst, ignore_errors=True)
        os.makedirs(dst)
        xplanes = glob.glob(os.path.join(logdir, "plugins", "profile", "*", "*.xplane.pb"))
        kept_xplane = None
        if xplanes and os.path.getsize(xplanes[0]) <= 400_000:
            kept_xplane = os.path.join(dst, "host.xplane.pb")
            shutil.copy(xplanes[0], kept_xplane)
        protos = sorted(p for p in glob.glob(os.path.join(dump, f"*jit_{module}*.hlo.pb"))
                        if "after_optimizations" in p and "buffer" not in p)
        if protos:
            shutil.copy(protos[-1], os.path.join(dst, f"jit_{module}.hlo.pb"))
        known["module"] = f"jit_{module}"
        known["xplane"] = bool(kept_xplane)
        known["xplane_bytes"] = os.path.getsize(xplanes[0]) if xplanes else 0
        known["jax"] = jax.__version__
        expect[name] = known
        shutil.rmtree(logdir, ignore_errors=True)
    with open(os.path.join(out, "expect.json"), "w") as f:
        json.dump(expect, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(expect, indent=1, sort_keys=True))
    print("dump files:", sorted(os.path.basename(p) for p in glob.glob(dump + "/*.hlo.pb"))[:40])


if __name__ == "__main__":
    main()
