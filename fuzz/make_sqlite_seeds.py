#!/usr/bin/env python3
"""Writes the seeds of fuzz/corpus/sqlite: tiny Nsight SQLite exports (512-byte pages) with
the tables formats/nsys_sqlite.c reads, a kernel launched inside NVTX ranges (an XLA module
and a thunk, so the projection and its XLA args run), one without NVTX, and a database
that is no nsys export.   python3 fuzz/make_sqlite_seeds.py fuzz/corpus/sqlite"""
import os
import sqlite3
import sys

SCHEMA = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
  shortName INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,
  nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,
  chipName TEXT, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER,
  smCount INTEGER, computeMajor INTEGER, computeMinor INTEGER);
"""
NVTX = """CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);"""

PID = (1 << 56) | (42 << 24)
TID = PID | 43


def export(path, nvtx):
    if os.path.exists(path):
        os.remove(path)
    con = sqlite3.connect(path)
    con.execute("PRAGMA page_size = 512")
    con.executescript(SCHEMA + (NVTX if nvtx else ""))
    con.executemany("INSERT INTO StringIds VALUES (?, ?)",
                    [(1, "kern(float*)"), (2, "cudaLaunchKernel_v7000"), (3, "main"), (4, "caf\xe9")])
    con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 2000, 0, 1, 7, 5, ?, 1, 1)", (PID,))
    con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (2500, 2600, 0, 1, 8, 6, ?, 1, 1)", (PID,))
    con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (3000, 3100, 0, 1, 7, 7, ?, 64, 1)", (PID,))
    con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (3200, 3300, 0, 1, 7, 8, ?, 0, 64)", (PID,))
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, 2, 0)",
                    [(100, 200, TID, 5), (300, 400, TID, 6), (500, 600, TID, 7)])
    con.execute("INSERT INTO ThreadNames VALUES (3, 0, ?)", (TID,))
    con.execute("INSERT INTO PROCESSES VALUES (?, 42, 'python3')", (PID,))
    con.execute("INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'GPU', 'GA100', 1024, 2048, 1000, 8, 8, 0)")
    if nvtx:
        con.executemany("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        [(50, 700, 59, "TSL:XlaModule:#hlo_module=jit_f,program_id=3#", TID, None),
                         (250, 450, 59, "TSL:Thunk:#hlo_op=fusion#", TID, None),
                         (60, 650, 60, None, TID, 4), (70, None, 34, "mark", TID, None)])
    con.commit()
    con.close()


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    export(os.path.join(out, "nvtx_xla.sqlite"), True)
    export(os.path.join(out, "kernels.sqlite"), False)
    other = os.path.join(out, "other.sqlite")
    if os.path.exists(other):
        os.remove(other)
    con = sqlite3.connect(other)
    con.execute("PRAGMA page_size = 512")
    con.execute("CREATE TABLE t (x INTEGER)")
    con.commit()
    con.close()


if __name__ == "__main__":
    main()
