"""The peer of bench/summary.sh: Holistic Trace Analysis loading one Kineto trace.

    python bench/peer_hta.py TRACE_DIR

TraceAnalysis(trace_dir=...) parses every trace in the folder into its DataFrames (the
JSON load, then HTA's own per-rank processing: symbol table, flows, call stacks); that is
what a user waits for before any analysis. Prints the HTA version, the events HTA kept
and the in-process load time.
"""
import logging
import sys
import time
from importlib.metadata import version


def main() -> int:
    trace_dir = sys.argv[1]
    logging.disable(logging.WARNING)
    from hta.trace_analysis import TraceAnalysis

    t0 = time.perf_counter()
    analysis = TraceAnalysis(trace_dir=trace_dir)
    load_s = time.perf_counter() - t0
    ranks = analysis.t.get_ranks() if hasattr(analysis.t, "get_ranks") else [0]
    events = sum(len(analysis.t.get_trace(r)) for r in ranks)
    print(f"hta {version('HolisticTraceAnalysis')}")
    print(f"events {events}")
    print(f"load_s {load_s:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
