#!/usr/bin/env bash
# tests/summary_gpu_work.sh - on Kineto traces only real GPU work is GPU compute and ops
# (issue 16 item 4): for every shared trace JSON with GPU kernels, `profq summarize` ranks
# no gpu_user_annotation or cuda_sync name in hot_ops, communication_ops or the op-region
# rows; the breakdown's compute and communication totals equal an independent sum over the
# kernel / memcpy / memset events (self time per stream with the spec's partial-overlap
# rule, split by the spec's stall and communication name patterns), and so does the hot
# ops' total self time; each GPU annotation range is a region of device_op_region_aggregates
# (every trace with gpu_user_annotation has such rows, and their ops are GPU work).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
PROFQ=${PROFQ:-$top/build/profq}
SHARED=${SHARED:-$top/../shared}
d=$SHARED/data/trace-json
if [ ! -f "$d/hta__nccl_parser_config__nccl_data.json.gz" ]; then
    echo "summary_gpu_work: SKIP: $d is absent"
    exit 77
fi
export PROFQ SHARED
exec python3 "$top/tests/summary_gpu_work.py" "$d"
