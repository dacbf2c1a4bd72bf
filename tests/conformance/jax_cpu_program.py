"""The JAX program the conformance suites compile and profile on the CPU at test time.

Ops different from the demo (scripts/demo_program.py): scan, while, cond, sort (one and
several operands), gather, scatter, concatenate, dynamic slices, pad, dot, cumsum; and
collectives (psum, all_gather, ppermute, all_to_all) through shard_map on 4 host devices
(XLA_FLAGS=--xla_force_host_platform_device_count=4, set here before JAX is imported), plus
a LAPACK custom call (QR).

Imported by hlo_text_xla.py (XLA's printer against profq's); run as a script it profiles
both programs with jax.profiler.trace:
    jax_cpu_program.py LOGDIR   -> LOGDIR/plugins/profile/<run>/<host>.xplane.pb
(xprof_all.sh runs it with the demo venv and compares the profile with xprof_all.py).
"""
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_force_host_platform_device_count=4")
import jax  # noqa: E402  (after the environment is set)
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402


def program(x, idx, m):
    def body(c, y):
        return c + jnp.sin(y), c * 2

    c, ys = lax.scan(body, 0.0, x)
    w = lax.while_loop(lambda v: v[0] < 10, lambda v: (v[0] + 1, v[1] * 1.5), (0, c))
    z = lax.cond(w[1] > 0, lambda a: a * 2, lambda a: a - 1, ys)
    s = jnp.sort(z)
    g = s[idx]
    sc = jnp.zeros(8).at[idx].add(g)
    d = lax.dynamic_slice(x, (idx[0],), (3,))
    p = jnp.pad(m, ((1, 2), (0, 1)))
    mm = (m @ m.T).sum(axis=1)
    srt = lax.sort((x, jnp.arange(8)), num_keys=1, is_stable=True)[1]
    return jnp.concatenate([sc, s[:3], d, p.ravel()[:4], mm, srt.astype(jnp.float32),
                            jnp.cumsum(x)])


def collectives(x):
    """Collectives over 4 host devices (shard_map) and a LAPACK custom call."""
    from jax.sharding import Mesh, PartitionSpec as P
    try:
        from jax import shard_map
    except ImportError:
        from jax.experimental.shard_map import shard_map
    mesh = Mesh(jax.devices()[:4], ("i",))

    def part(v):
        s = lax.psum(v, "i")
        g = lax.all_gather(v, "i")
        r = lax.ppermute(v, "i", [(k, (k + 1) % 4) for k in range(4)])
        a = lax.all_to_all(v.reshape(4, -1), "i", 0, 0).reshape(-1)
        return s + g.sum(0) + r + a

    y = shard_map(part, mesh=mesh, in_specs=P("i"), out_specs=P("i"))(x)
    q, _ = jnp.linalg.qr(y.reshape(8, 2))
    return q


ARGS = {
    "program": (jnp.arange(8.0), jnp.array([1, 3]), jnp.ones((4, 4))),
    "collectives": (jnp.arange(16.0),),
}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: jax_cpu_program.py LOGDIR")
    fns = {"program": jax.jit(program), "collectives": jax.jit(collectives)}
    for name, f in fns.items():  # compiled outside the trace: the trace holds the runs
        f(*ARGS[name]).block_until_ready()
    with jax.profiler.trace(sys.argv[1]):
        for step in range(3):
            with jax.profiler.StepTraceAnnotation("conformance", step_num=step):
                for name, f in fns.items():
                    f(*ARGS[name]).block_until_ready()
    print(f"jax_cpu_program: JAX {jax.__version__}, {len(jax.devices())} "
          f"{jax.devices()[0].platform} devices, profile under {sys.argv[1]}")


if __name__ == "__main__":
    main()
