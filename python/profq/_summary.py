"""profile_summary.v1 (placeholder until pq_summary_compute is bound)."""
from typing import Any


class Summary:
    """placeholder"""


def summarize(path: Any, **options: Any) -> Summary:
    raise NotImplementedError("summarize")
