"""Columnar tables from C arrays of structs.

Numeric columns are read with numpy as strided views of the C array (one copy per column,
no Python loop per row); string columns are decoded in one pass per column. A table is a
pandas DataFrame when pandas is installed, else a dict of column name -> list."""

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from ._native import ffi

try:
    import numpy as np
except ImportError:  # pragma: no cover - the optional extra
    np = None
try:
    import pandas as pd
except ImportError:  # pragma: no cover - the optional extra
    pd = None

#: A table: pandas.DataFrame with profq[pandas], else {column: list}.
Table = Any

_NUMPY = {"int64_t": "<i8", "uint64_t": "<u8", "double": "<f8", "int": "<i4", "uint32_t": "<u4",
          "size_t": "<u8", "unsigned int": "<u4", "int32_t": "<i4", "float": "<f4"}


def _field(ctype: Any, path: str) -> Tuple[int, Any]:
    """Offset and type of the (possibly nested, dotted) field PATH of struct CTYPE."""
    off = 0
    t = ctype
    for part in path.split("."):
        f = dict(t.fields)[part]
        off += f.offset
        t = f.type
    return off, t


def columns(ptr: Any, n: int, ctype_name: str, spec: Sequence[Union[str, Tuple[str, str]]]
            ) -> Dict[str, Any]:
    """Columns of the N structs CTYPE_NAME at PTR. SPEC lists fields ("a", "b.c") or
    (column name, field path) pairs; numbers become numpy arrays (lists without numpy),
    pq_str and char * fields lists of str (None for a NULL char *)."""
    ctype = ffi.typeof(ctype_name)
    size = ffi.sizeof(ctype)
    raw = ffi.buffer(ptr, n * size) if n else b""
    out: Dict[str, Any] = {}
    for item in spec:
        col, path = (item, item) if isinstance(item, str) else item
        off, t = _field(ctype, path)
        if (t.kind == "primitive" and t.cname in _NUMPY) or t.kind == "enum":
            dt = _NUMPY["int" if t.kind == "enum" else t.cname]
            if np is not None:
                out[col] = np.ndarray((n,), dt, raw, off, (size,)).copy() if n else np.zeros(0, dt)
            else:
                arr = ffi.cast(ctype_name + " *", ptr)
                out[col] = [_get(arr[i], path) for i in range(n)]
        elif t.kind == "struct" and t.cname == "pq_str":
            arr = ffi.cast(ctype_name + " *", ptr)
            out[col] = [_pq_str(_get(arr[i], path)) for i in range(n)]
        elif t.kind == "pointer" and t.item.cname == "char":
            arr = ffi.cast(ctype_name + " *", ptr)
            out[col] = [_char_p(_get(arr[i], path)) for i in range(n)]
        else:
            raise TypeError(f"profq: no column type for {ctype_name}.{path} ({t.cname})")
    return out


def _get(obj: Any, path: str) -> Any:
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _pq_str(s: Any) -> str:
    return ffi.unpack(s.p, s.n).decode("utf-8", "replace") if s.n else ""


def _char_p(p: Any) -> Optional[str]:
    return None if p == ffi.NULL else ffi.string(p).decode("utf-8", "replace")


def table(cols: Dict[str, Any]) -> Table:
    """COLS as a DataFrame (pandas installed) or a dict of lists."""
    if pd is not None:
        return pd.DataFrame(cols)
    return {k: (v.tolist() if hasattr(v, "tolist") else list(v)) for k, v in cols.items()}


def array(ptr: Any, n: int, ctype_name: str) -> Any:
    """N numbers of type CTYPE_NAME at PTR: a numpy array (a copy), else a list."""
    if n == 0 or ptr == ffi.NULL:
        return np.zeros(0, _NUMPY[ctype_name]) if np is not None else []
    if np is not None:
        return np.frombuffer(ffi.buffer(ptr, n * ffi.sizeof(ctype_name)),
                             _NUMPY[ctype_name]).copy()
    return list(ffi.unpack(ffi.cast(ctype_name + " *", ptr), n))


def rows_of(t: Table) -> List[Dict[str, Any]]:
    """The rows of a table as dicts (for tests and small tables)."""
    if pd is not None and isinstance(t, pd.DataFrame):
        return t.to_dict("records")
    keys = list(t)
    n = len(t[keys[0]]) if keys else 0
    return [{k: t[k][i] for k in keys} for i in range(n)]
