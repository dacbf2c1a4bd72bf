"""The check vocabulary of the nsys oracle scripts (compile_loader, heap_notebook,
flame_notebook): check() prints ok/FAIL and records failures, close() is the relative
tolerance, finish() prints the verdict and exits 1 on a failure; unique_keys() is a json.loads
hook refusing a key twice in one object (xplane_comm, sqlite_nsys)."""
import sys

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def unique_keys(pairs):
    """json.loads hook: a key twice in one object is an error (JSON consumers keep one)."""
    keys = [k for k, _ in pairs]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise ValueError("duplicate JSON keys %s" % dup)
    return dict(pairs)


def finish(name):
    if failures:
        print(f"{name}: {len(failures)} check(s) failed")
        sys.exit(1)
    print(f"{name}: all checks passed")
