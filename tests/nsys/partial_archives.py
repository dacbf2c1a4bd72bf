"""Inputs of tests/partial.sh's nsys merges: newer-layout nsys-jax archives built from the
shared archive's rows (newer_archive.py, pyarrow) as three processes of one job, and a copy
of the first under another name (one process de-duplicates it). Usage:
partial_archives.py SHARED.zip OUTDIR."""
import shutil
import sys
import zipfile

import newer_archive as na


def with_dumps(shared, members):
    """MEMBERS plus the shared archive's HloProto dumps (the communication rows, heap and
    flame read them)."""
    with zipfile.ZipFile(shared) as z:
        for name in z.namelist():
            if name.startswith("dump/") and name.endswith(".hlo.pb.xz"):
                members[name] = z.read(name)
    return members


def main():
    shared, out = sys.argv[1], sys.argv[2]
    na.write_zip(f"{out}/b_newer0.zip", with_dumps(shared, na.newer_members(shared)))
    na.write_zip(f"{out}/c_newer1.zip", with_dumps(shared, na.newer_members(
        shared, process=1, pid_offset=1000, scale=1.25)))
    na.write_zip(f"{out}/d_newer2.zip", na.newer_members(
        shared, process=2, pid_offset=2000, scale=0.8, pushpop="csv.xz"))
    shutil.copy(f"{out}/b_newer0.zip", f"{out}/e_same_as_b.zip")


if __name__ == "__main__":
    main()
