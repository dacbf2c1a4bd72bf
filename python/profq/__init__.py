"""profq from Python: read ML accelerator profiles (XLA XPlane, HloProto, Chrome/Kineto
trace JSON, Tenstorrent logs, nsys-jax archives) with libprofq and get XProf's analyses
and the nsys-jax tables as Python objects.

    import profq
    with profq.load("run/plugins/profile/2024_01_01") as p:
        p.info()                      # sources and scan totals
        p.ops().ops                   # hlo_stats-like op table (pandas DataFrame)
        p.roofline().total            # program totals, bound-by
        p.memory_viewer(module="jit_train_step")   # XProf's memory viewer figures
        p.memory().rows               # memory attribution per device
        p.xprof("memory_viewer", module_name="jit_f(1)", memory_space=0)  # XProf's JSON
    profq.load("nsys-jax_run.zip").nsys().modules   # nsys-jax steady module table
    profq.summarize("trace.json.gz")  # profile_summary.v1

Tables are pandas DataFrames when pandas is installed (``pip install profq[pandas]``),
else dicts of column lists. Failures raise profq.Error (.path, .offset, .message).
"""

from ._native import LIBRARY_PATH, Error, ffi as _ffi, lib as _lib
from ._partial import merge, partial
from ._profile import Memory, MemoryViewer, Nsys, Ops, Profile, Source, Table, load
from ._summary import Summary, summarize

__version__ = "0.1.0"

#: The version of the loaded libprofq (PQ_VERSION_STRING of its header).
LIBRARY_VERSION = __version__

__all__ = ["load", "summarize", "Profile", "Source", "Ops", "MemoryViewer", "Memory",
           "Nsys", "Summary", "Table", "Error", "partial", "merge", "LIBRARY_PATH", "__version__"]
