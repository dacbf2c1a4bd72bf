"""The cffi (ABI mode) binding: include/profq.h's declarations, libprofq.so, pq_error to
profq.Error, and a pq_sink that collects bytes. Nothing here computes or formats."""

import os
from typing import Any, Callable, List, Optional

import cffi

from ._cdef import CDEF

ffi = cffi.FFI()
ffi.cdef(CDEF)

#: Path of the shared library the package loaded. PROFQ_LIBRARY overrides it (a
#: sanitizer build of the same version, for the repository's tests).
LIBRARY_PATH = os.environ.get("PROFQ_LIBRARY") or os.path.join(os.path.dirname(__file__),
                                                               "libprofq.so")
lib: Any = ffi.dlopen(LIBRARY_PATH)


class Error(Exception):
    """A profq failure: what the C library reported in its pq_error.

    Attributes:
        status: the pq_status name ("input", "io", "not_found", "usage", ...).
        path: the file involved ("" when none).
        offset: the byte offset in that file where the input went wrong, or -1.
        message: what was expected / what went wrong.
    """

    def __init__(self, status: str, path: str, offset: int, message: str) -> None:
        self.status, self.path, self.offset, self.message = status, path, offset, message
        where = path + (f" (byte offset {offset})" if offset >= 0 else "")
        super().__init__(f"{where}: {message}" if where else message)

    def __reduce__(self) -> Any:
        # pickled with its fields (a Dask or multiprocessing worker raises it to the client)
        return (Error, (self.status, self.path, self.offset, self.message))


def new_error() -> Any:
    """A zeroed pq_error to pass to a pq_ function."""
    return ffi.new("pq_error *")


def check(status: int, err: Any) -> None:
    """Raises profq.Error when STATUS is not PQ_OK."""
    if status == lib.PQ_OK:
        return
    name = ffi.string(lib.pq_status_name(status)).decode()
    raise Error(name, os.fsdecode(ffi.string(err.path)), int(err.offset),
                ffi.string(err.message).decode("utf-8", "replace"))


def cstr(p: Any) -> Optional[str]:
    """A NUL-terminated char * as str (None for NULL)."""
    return None if p == ffi.NULL else ffi.string(p).decode("utf-8", "replace")


def pstr(s: Any) -> str:
    """A pq_str view as str."""
    return ffi.unpack(s.p, s.n).decode("utf-8", "replace") if s.n else ""


def encode(s: Optional[str]) -> Any:
    """A str as a NUL-terminated char[] that cffi keeps alive (NULL for None)."""
    return ffi.NULL if s is None else ffi.new("char[]", os.fsencode(s))


def render(call: Callable[[Any, Any], int]) -> bytes:
    """Calls CALL(sink, err) with a pq_sink that collects everything written to it."""
    chunks: List[bytes] = []

    @ffi.callback("int(void *, const void *, size_t)")
    def write(_ctx: Any, data: Any, n: int) -> int:
        chunks.append(ffi.buffer(data, n)[:])
        return 0

    sink = ffi.new("pq_sink *")
    sink.write = write
    err = new_error()
    check(call(sink, err), err)
    return b"".join(chunks)
