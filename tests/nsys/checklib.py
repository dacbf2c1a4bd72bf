"""The check vocabulary of the nsys oracle scripts (compile_loader, heap_notebook,
flame_notebook): check() prints ok/FAIL and records failures, close() is the relative
tolerance, finish() prints the verdict and exits 1 on a failure."""
import sys

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def finish(name):
    if failures:
        print(f"{name}: {len(failures)} check(s) failed")
        sys.exit(1)
    print(f"{name}: all checks passed")
