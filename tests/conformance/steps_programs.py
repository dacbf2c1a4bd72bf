"""The programs roofline_steps.sh profiles at test time for its host-only step cases
(issue 13 item 5): training steps marked as the frameworks mark them.

    steps_programs.py jax LOGDIR   (build/venv-demo) a jitted gradient step on the CPU, 4 host
                                   devices as in jax_cpu_program.py, 8 steps each inside
                                   jax.profiler.StepTraceAnnotation("train", step_num=i),
                                   profiled with jax.profiler.trace
    steps_programs.py tf LOGDIR    (build/venv-tf) a small Keras model trained with
                                   train_on_batch, 8 steps each inside
                                   tf.profiler.experimental.Trace("train", step_num=i, _r=1)
                                   (TF's step line: the root tsl groups), between a fit before
                                   and after, profiled with tf.profiler.experimental

Each writes LOGDIR/plugins/profile/<run>/<host>.xplane.pb.
"""
import os
import sys

STEPS = 8


def jax_program(logdir):
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               " --xla_force_host_platform_device_count=4")
    import jax
    import jax.numpy as jnp

    def step(w, x):
        return w - 0.1 * jax.grad(lambda v: jnp.mean(jnp.tanh(x @ v) ** 2))(w)

    f = jax.jit(step)
    w, x = jnp.ones((64, 64)), jnp.ones((32, 64))
    f(w, x).block_until_ready()  # compiled outside the trace
    with jax.profiler.trace(logdir):
        for i in range(STEPS):
            with jax.profiler.StepTraceAnnotation("train", step_num=i):
                w = f(w, x)
                w.block_until_ready()


def tf_program(logdir):
    import numpy as np
    import tensorflow as tf

    x = np.random.RandomState(0).rand(256, 16).astype("float32")
    y = (x.sum(axis=1, keepdims=True) > 8).astype("float32")
    m = tf.keras.Sequential([tf.keras.Input((16,)), tf.keras.layers.Dense(32, activation="relu"),
                             tf.keras.layers.Dense(1, activation="sigmoid")])
    m.compile(optimizer="adam", loss="binary_crossentropy")
    m.fit(x, y, batch_size=32, epochs=1, verbose=0)
    tf.profiler.experimental.start(logdir)
    for i in range(STEPS):
        with tf.profiler.experimental.Trace("train", step_num=i, _r=1):
            m.train_on_batch(x[:32], y[:32])
    m.fit(x, y, batch_size=32, epochs=1, verbose=0)
    tf.profiler.experimental.stop()


def main():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if len(sys.argv) != 3 or sys.argv[1] not in ("jax", "tf"):
        sys.exit("usage: steps_programs.py jax|tf LOGDIR")
    (jax_program if sys.argv[1] == "jax" else tf_program)(sys.argv[2])


if __name__ == "__main__":
    main()
