"""The `make bench` peer for `profq ops`: XProf's hlo_stats on one XSpace, in process.
Prints the number of rows and the conversion time. XProf writes its caches next to the
file (use_saved_result=False removes stale ones first)."""
import sys
import time

from xprof.convert import _pywrap_profiler_plugin as plugin

t = time.perf_counter()
data, ok = plugin.xspace_to_tools_data([sys.argv[1]], sys.argv[2] if len(sys.argv) > 2 else
                                       "hlo_stats", {"use_saved_result": False})
if not ok:
    sys.exit(f"xprof failed: {data[:200]!r}")
print(f"bytes {len(data)}")
print(f"convert_s {time.perf_counter() - t:.3f}")
