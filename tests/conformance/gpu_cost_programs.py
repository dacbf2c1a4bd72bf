"""HloProtos for tests/conformance/gpu_cost.sh: small JAX programs compiled for the CPU at
test time (XLA's optimized modules), covering the opcodes the shared GPU profiles have few
or none of: while, conditional, sort, gather, scatter, concatenate, pad, reduce-window,
select-and-scatter (the gradient of a max pool), dynamic slices, dot, convolution,
transpose, iota, reverse, clamp, power, rng-bit-generator, collectives through shard_map
on 4 host devices, a LAPACK custom call. Each module is wrapped into an HloProto
(hlo_module = field 1) and written to OUT_DIR/<name>.hlo.pb.

Usage: gpu_cost_programs.py OUT_DIR
"""
import os
import sys

os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_force_host_platform_device_count=4")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402


def control(x, idx, m):
    def body(c, y):
        return c + jnp.sin(y), c * 2

    c, ys = lax.scan(body, 0.0, x)
    w = lax.while_loop(lambda v: v[0] < 10, lambda v: (v[0] + 1, v[1] * 1.5), (0, c))
    z = lax.cond(w[1] > 0, lambda a: a * 2, lambda a: a - 1, ys)
    s = jnp.sort(z)
    g = s[idx]
    sc = jnp.zeros(8).at[idx].add(g)
    d = lax.dynamic_slice(x, (idx[0],), (3,))
    u = lax.dynamic_update_slice(x, d * 2, (idx[1],))
    p = jnp.pad(m, ((1, 2), (0, 1)))
    mm = (m @ m.T).sum(axis=1)
    srt = lax.sort((x, jnp.arange(8)), num_keys=1, is_stable=True)[1]
    return jnp.concatenate([sc, s[:3], d, u, p.ravel()[:4], mm, srt.astype(jnp.float32),
                            jnp.cumsum(x), jnp.flip(x), jnp.clip(x, 1, 3) ** 2.5])


def windows(img, k):
    def pool(a):
        return lax.reduce_window(a, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    y = lax.conv_general_dilated(img, k, (1, 1), "SAME",
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"))
    pooled, grad = jax.value_and_grad(lambda a: pool(a).sum())(y)
    avg = lax.reduce_window(y, 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME")
    t = jnp.transpose(y, (0, 3, 1, 2))
    return pooled, grad, avg, t, jnp.argmax(y, axis=-1), jnp.tanh(y).mean(axis=(1, 2))


def seqlens(lens):
    """Cumulative sequence offsets, the input_concatenate_fusion of issue 13 item 3."""
    return jnp.concatenate([jnp.zeros(1, jnp.int32), jnp.cumsum(lens)])


def random_bits(key):
    return jax.random.normal(key, (64,)), jax.random.randint(key, (16,), 0, 10)


def collectives(x):
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
        rs = lax.psum_scatter(jnp.tile(v, 4), "i", tiled=True)
        return s + g.sum(0) + r + a + rs

    y = shard_map(part, mesh=mesh, in_specs=P("i"), out_specs=P("i"))(x)
    q, _ = jnp.linalg.qr(y.reshape(8, 2))
    return q


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    progs = {
        "control": (control, (jnp.arange(8.0), jnp.array([1, 3]), jnp.ones((4, 4)))),
        "windows": (windows, (jnp.ones((2, 8, 8, 3)), jnp.ones((3, 3, 3, 4)))),
        "random_bits": (random_bits, (jax.random.PRNGKey(0),)),
        "seqlens": (seqlens, (jnp.array([3, 5], jnp.int32),)),
        "collectives": (collectives, (jnp.arange(16.0),)),
    }
    for name, (f, args) in progs.items():
        comp = jax.jit(f).lower(*args).compile()
        module = comp.runtime_executable().hlo_modules()[0].as_serialized_hlo_module_proto()
        with open(os.path.join(out, f"{name}.hlo.pb"), "wb") as fh:
            fh.write(b"\x0a" + varint(len(module)) + module)  # HloProto.hlo_module = 1
        print(f"gpu_cost_programs: {name}.hlo.pb")
    return 0


if __name__ == "__main__":
    sys.exit(main())
