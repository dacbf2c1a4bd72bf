"""profq against XProf 2.24.2, every field of every XProf tool profq reproduces.

Usage: xprof_all.py --profq PROFQ --hlo-text-dump DRIVER --data SHARED_DATA [--hlo-dir DIR]...
                    [--jax-run XPLANE]... [--verbose]

Inputs: every XPlane in DATA/xplane (files, and run directories as one session; not
corrupt/), every standalone HloProto in DATA/hlo and in each --hlo-dir (tests/fixtures,
fuzz/corpus/hlo), and the XPlanes of the JAX program profiled on the CPU at test time
(--jax-run, jax_cpu_program.py). XProf is xprof's xspace_to_tools_data on a scratch copy
(symlinks: XProf writes caches next to the XSpace); profq is its CLI's `--format xprof`.

Tools and what is compared (every leaf of both JSON documents; a key on one side only is a
difference):
  memory_viewer    every module profq lists (the list equal to XProf's) x every memory space
                   of it and spaces 0 and 1 when unused (XPlanes, HloProtos)
  memory_profile   every XPlane
  hlo_stats        every XPlane: the table's columns and properties, rows keyed by
                   (program_id, hlo_op_name), every cell, and the row order
  op_profile       every XPlane, grouped by program, category and provenance: both trees,
                   children matched by (name, programId), every field, the child order
                   (XProf's exactly, ties included)
  roofline_model   every XPlane: both tables, every cell in order, columns, properties
  hlo_text         every instruction of every module XProf lists, printed by profq's HLO
                   printer (build/tests/hlo_text_dump) and by XProf's graph_viewer (long_txt):
                   name, shape, opcode, operand names, attributes (see hlo_text below)

Strings, integers, booleans and nulls compare exactly; a float (on either side) within 1e-6
relative (no absolute slack: a 1e-8 utilization is compared as closely as a 1e8 time). Fields XProf itself does not fix (it iterates hash
maps) are compared by the rules in NONDETERMINISTIC, printed once with the reason. A
difference whose cause another part of profq owns and is being fixed is matched by KNOWN
(tool, field pattern): counted and printed apart with its owner, it does not fail the run;
any other difference does. Prints the fields compared per tool; exit 0 with no unexpected
difference, 1 otherwise.
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

from xprof.convert import _pywrap_profiler_plugin as pw

REL = 1e-6
TOOLS = ("memory_viewer", "memory_profile", "hlo_stats", "op_profile", "roofline_model",
         "hlo_text")

# Orders and picks XProf 2.24.2 leaves to absl::flat_hash_map iteration (they change between
# XProf builds), compared by these rules instead of position (docs/internals/memviewer.md):
NONDETERMINISTIC = [
    ("memory_viewer", "maxHeap (indefinite allocations' objects), maxHeapBySize, "
     "indefiniteLifetimes",
     "allocations are iterated in hash order: compared as multisets (every field); the "
     "peak-live objects and the small aggregate in order; maxHeapBySize sizes in order"),
    ("memory_viewer", "maxHeap[].numbered, maxHeapToBySize, bySizeToMaxHeap",
     "follow that hash order: numbered must be a permutation of 0..n-1, the two maps "
     "inverse permutations mapping maxHeap onto maxHeapBySize (on each side)"),
    ("memory_viewer", "bufferBlocks[].color",
     "the palette index of the buffer's numbered: compared where numbered agrees"),
    ("memory_viewer", "bufferBlocks[].offset (several allocation blocks)",
     "allocation blocks are laid out in hash order: blocks compared as a multiset "
     "without offset and color"),
    ("memory_profile", "sampledTimelineSnapshots order at equal times",
     "std::sort (not stable) by time: compared as a multiset when only the order differs"),
    ("memory_profile", "the representative snapshot of an active allocation with "
     "numOccurrences > 1 (timeOffsetPs, aggregationStats, activityMetadata.address)",
     "equal allocations collapse into one entry whose snapshot XProf picks in hash order"),
]

# Differences whose cause another part of profq owns and is fixing: (tool, regex on the case,
# regex on the field path, owner, cause). Remove an entry when the fix is merged; an entry
# that matches nothing is reported (it is stale). Empty: every field is equal.
KNOWN = []


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


class Tool:
    def __init__(self, name):
        self.name, self.fields, self.cases = name, 0, 0
        self.bad = []                                   # (where, message)
        self.known = collections.OrderedDict()          # cause -> [count, example]


class Cmp:
    """Compares two JSON values leaf by leaf into a Tool; `where` names the case."""

    def __init__(self, tool, where):
        self.tool, self.where = tool, where

    def differ(self, path, msg):
        for tool, case, pat, owner, cause in KNOWN:
            if tool == self.tool.name and re.search(case, self.where) and re.search(pat, path):
                k = f"{owner}: {cause}"
                e = self.tool.known.setdefault(k, [0, f"{self.where} {path}: {msg}"])
                e[0] += 1
                return
        self.tool.bad.append((self.where, f"{path}: {msg}"))

    def leaf(self, path, x, p):
        self.tool.fields += 1
        if is_num(x) and is_num(p):
            if isinstance(x, float) or isinstance(p, float):
                ok = x == p or abs(x - p) <= REL * max(abs(x), abs(p))
            else:
                ok = x == p
        else:
            ok = type(x) is type(p) and x == p
        if not ok:
            self.differ(path, f"xprof {short(x)} profq {short(p)}")

    def tree(self, path, x, p):
        if isinstance(x, dict) and isinstance(p, dict):
            for k in sorted(set(x) | set(p), key=str):
                if k not in p:
                    self.tool.fields += 1
                    self.differ(f"{path}.{k}", f"missing in profq (xprof {short(x[k])})")
                elif k not in x:
                    self.tool.fields += 1
                    self.differ(f"{path}.{k}", f"extra in profq ({short(p[k])})")
                else:
                    self.tree(f"{path}.{k}", x[k], p[k])
        elif isinstance(x, list) and isinstance(p, list):
            self.leaf(f"{path}.length", len(x), len(p))
            for i, (u, v) in enumerate(zip(x, p)):
                self.tree(f"{path}[{i}]", u, v)
        else:
            self.leaf(path, x, p)

    def multiset(self, path, x, p):
        self.tree(path + "{multiset}", sorted(x, key=canon), sorted(p, key=canon))


def short(v):
    s = json.dumps(v) if not isinstance(v, str) else repr(v)
    return s if len(s) <= 100 else s[:97] + "..."


def canon(o):
    return json.dumps(o, sort_keys=True)


def strip(o, keys):
    return {k: v for k, v in o.items() if k not in keys}


# ---------------------------------------------------------------------------------------------
# Running both sides


def xprof(paths, tool, **opts):
    opts.setdefault("use_saved_result", False)
    data, ok = pw.xspace_to_tools_data(paths, tool, opts)
    if isinstance(data, bytes):
        data = data.decode()
    return data, ok


def profq(exe, *args):
    r = subprocess.run([exe, *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def profq_json(exe, *args):
    rc, out, err = profq(exe, *args)
    if rc != 0:
        raise RuntimeError(f"profq {' '.join(args)}: exit {rc}: {err.strip()}")
    return json.loads(out)


# ---------------------------------------------------------------------------------------------
# memory_viewer


def check_perm(c, d, who):
    mh, bs = d.get("maxHeap", []), d.get("maxHeapBySize", [])
    m2b, b2m = d.get("maxHeapToBySize", []), d.get("bySizeToMaxHeap", [])
    n = len(mh)
    c.tool.fields += 3
    if sorted(o.get("numbered", 0) for o in mh) != list(range(n)):
        c.differ(f"{who}.maxHeap[].numbered", "not a permutation of 0..n-1")
    if sorted(m2b) != list(range(n)) or sorted(b2m) != list(range(n)):
        c.differ(f"{who}.maxHeapToBySize", "index maps are not permutations")
        return
    for j in range(n):
        if canon(bs[j]) != canon(mh[b2m[j]]) or m2b[b2m[j]] != j:
            c.differ(f"{who}.bySizeToMaxHeap[{j}]", "does not map maxHeapBySize onto maxHeap")
            return


def memory_viewer_compare(c, x, p):
    x, p = dict(x), dict(p)
    check_perm(c, x, "xprof")
    check_perm(c, p, "profq")

    def split(mh):
        def indefinite(o):
            return o.get("logicalBufferId", 0) != -1 and o.get("groupName") != "Temporary"
        return ([strip(o, {"numbered"}) for o in mh if indefinite(o)],
                [strip(o, {"numbered"}) for o in mh if not indefinite(o)])

    ix, sx = split(x.get("maxHeap", []))
    ip, sp = split(p.get("maxHeap", []))
    c.multiset(".maxHeap(indefinite)", ix, ip)
    c.tree(".maxHeap(peak)", sx, sp)
    bx, bp = x.get("maxHeapBySize", []), p.get("maxHeapBySize", [])
    c.multiset(".maxHeapBySize", [strip(o, {"numbered"}) for o in bx],
               [strip(o, {"numbered"}) for o in bp])
    c.tree(".maxHeapBySize[].logicalBufferSizeMib",
           [o.get("logicalBufferSizeMib", 0) for o in bx],
           [o.get("logicalBufferSizeMib", 0) for o in bp])
    c.multiset(".indefiniteLifetimes", x.get("indefiniteLifetimes", []),
               p.get("indefiniteLifetimes", []))
    blx, blp = x.get("bufferBlocks", []), p.get("bufferBlocks", [])
    nx = {o.get("logicalBufferId"): o.get("numbered") for o in x.get("maxHeap", [])}
    np_ = {o.get("logicalBufferId"): o.get("numbered") for o in p.get("maxHeap", [])}
    containers = sum(1 for b in blx if b.get("logicalBufferId") == -1)
    if containers <= 1 and len(blx) == len(blp):
        for i, (u, v) in enumerate(zip(blx, blp)):
            lb = u.get("logicalBufferId")
            keys = {"color"} if lb in nx and nx.get(lb) != np_.get(lb) else set()
            c.tree(f".bufferBlocks[{i}]", strip(u, keys), strip(v, keys))
    else:
        c.multiset(".bufferBlocks", [strip(b, {"offset", "color"}) for b in blx],
                   [strip(b, {"offset", "color"}) for b in blp])
    for k in ("maxHeap", "maxHeapBySize", "maxHeapToBySize", "bySizeToMaxHeap",
              "indefiniteLifetimes", "bufferBlocks"):
        x.pop(k, None)
        p.pop(k, None)
    c.tree("", x, p)


def memory_viewer(t, exe, xs, src, label, check_list):
    """Every module profq lists in src (XPlane or HloProto) x every memory space of it;
    xs is the XSpace path XProf reads (an empty one beside the HloProtos for those). The
    module list equals XProf's (its /module_list route: the HloProtos it writes beside the
    XSpace; checked when src is the session's only XPlane)."""
    mods = profq_json(exe, "memory-viewer", "--format", "json", src)["modules"]
    d = os.path.dirname(xs)
    if check_list:
        Cmp(t, label).leaf(".module list",
                           sorted(f[:-len(".hlo_proto.pb")] for f in os.listdir(d)
                                  if f.endswith(".hlo_proto.pb")),
                           sorted(m["module"] for m in mods))
    for m in mods:  # spaces 0 (HBM) and 1 (on-chip) even when unused: both say so alike
        for space in sorted(set(m["memory_spaces"]) | {0, 1}):
            t.cases += 1
            c = Cmp(t, f"{label} {m['module']} space {space}")
            raw, ok = xprof([xs], "memory_viewer", module_name=m["module"],
                            memory_space=str(space))
            rc, out, err = profq(exe, "memory-viewer", "--format", "xprof", "--module",
                                 m["module"], "--memory-space", str(space), src)
            t.fields += 1
            if not ok:
                if rc != 3:  # XProf refuses (a trace it cannot replay): so must profq
                    c.differ("", f"xprof refused ({raw[:100]!r}), profq exit {rc}")
                continue
            if rc != 0:
                c.differ("", f"profq exit {rc}: {err.strip()[:200]}")
                continue
            memory_viewer_compare(c, json.loads(raw), json.loads(out))


# ---------------------------------------------------------------------------------------------
# memory_profile


def memory_profile(t, exe, xs, src, label):
    t.cases += 1
    c = Cmp(t, label)
    raw, ok = xprof([xs], "memory_profile")
    rc, out, err = profq(exe, "memory-profile", "--format", "xprof", src)
    t.fields += 1
    if not ok or rc != 0:
        c.differ("", f"xprof ok={ok}, profq exit {rc} {err.strip()[:200]}")
        return
    if not raw.strip() or not out.strip():
        c.leaf(".empty", not raw.strip(), not out.strip())
        return
    x, p = json.loads(raw), json.loads(out)
    ax, ap = x.pop("memoryProfilePerAllocator", {}), p.pop("memoryProfilePerAllocator", {})
    for k in sorted(set(ax) | set(ap)):
        u, v = dict(ax.get(k, {})), dict(ap.get(k, {}))
        su, sv = u.pop("sampledTimelineSnapshots", []), v.pop("sampledTimelineSnapshots", [])
        if sorted(map(canon, su)) == sorted(map(canon, sv)):
            c.multiset(f".memoryProfilePerAllocator.{k}.sampledTimelineSnapshots", su, sv)
        else:
            c.tree(f".memoryProfilePerAllocator.{k}.sampledTimelineSnapshots", su, sv)
        for z in (u, v):
            snaps = z.get("memoryProfileSnapshots", [])
            for act in z.get("activeAllocations", []):
                i = int(act["snapshotIndex"])
                if int(act["numOccurrences"]) > 1 and 0 <= i < len(snaps):
                    s = snaps[i] = dict(snaps[i])
                    s.pop("timeOffsetPs", None)
                    s.pop("aggregationStats", None)
                    s["activityMetadata"] = strip(s.get("activityMetadata", {}), {"address"})
        c.tree(f".memoryProfilePerAllocator.{k}", u, v)
    c.tree("", x, p)


# ---------------------------------------------------------------------------------------------
# hlo_stats, roofline_model, op_profile


def one_table(d):
    return d[0] if isinstance(d, list) else d


def hlo_stats(t, exe, paths, src, label):
    t.cases += 1
    c = Cmp(t, label)
    x = one_table(json.loads(xprof(paths, "hlo_stats")[0]))
    p = one_table(profq_json(exe, "ops", "--format", "xprof", src))

    def rows(d):
        return [dict(zip([col["id"] for col in d.get("cols", [])],
                         [cell.get("v") if cell else None for cell in r["c"]]))
                for r in d.get("rows", [])]

    def key(r):
        return (r.get("program_id"), r.get("hlo_op_name"))

    rx, rp = rows(x), rows(p)
    kx, kp = [key(r) for r in rx], [key(r) for r in rp]
    c.leaf(".rows(keys)", sorted(map(str, kx)), sorted(map(str, kp)))
    common = [k for k in kx if k in set(kp)]
    c.leaf(".rows(order)", [str(k) for k in common], [str(k) for k in kp if k in set(kx)])
    dx, dp = dict(zip(kx, rx)), dict(zip(kp, rp))
    for k in common:
        c.tree(f".rows[{k[0]} {k[1]}]", dx[k], dp[k])
    c.tree(".cols", x.get("cols"), p.get("cols"))
    c.tree(".p", x.get("p"), p.get("p"))
    c.leaf(".keys", sorted(x), sorted(p))


def roofline_model(t, exe, paths, src, label):
    t.cases += 1
    c = Cmp(t, label)
    x = json.loads(xprof(paths, "roofline_model")[0])
    p = profq_json(exe, "roofline", "--format", "xprof", src)
    c.leaf(".tables", len(x), len(p))
    for i, (u, v) in enumerate(zip(x, p)):
        cols = [col["id"] for col in u.get("cols", [])]
        c.tree(f"[{i}].cols", u.get("cols"), v.get("cols"))
        c.tree(f"[{i}].p", u.get("p"), v.get("p"))
        c.leaf(f"[{i}].keys", sorted(u), sorted(v))
        ru, rv = u.get("rows", []), v.get("rows", [])
        c.leaf(f"[{i}].rows.length", len(ru), len(rv))
        for j, (a, b) in enumerate(zip(ru, rv)):
            ca = [cell.get("v") if cell else None for cell in a["c"]]
            cb = [cell.get("v") if cell else None for cell in b["c"]]
            name = " ".join(str(v) for v in ca[:4] if v is not None)[:60]
            c.tree(f"[{i}].rows[{j} {name}]", dict(zip(cols, ca)), dict(zip(cols, cb)))


def node_key(n):
    return (n.get("name"), n.get("xla", {}).get("programId"))


def op_node(c, path, x, p):
    kx, kp = x.get("children", []), p.get("children", [])
    c.tree(path, strip(x, {"children"}), strip(p, {"children"}))
    xs, ps = {node_key(n): n for n in kx}, {node_key(n): n for n in kp}
    c.leaf(f"{path}.children(keys)", sorted(map(str, xs)), sorted(map(str, ps)))
    # XProf's order (rawTime descending; rawFlops under a fusion), ties included
    c.leaf(f"{path}.children(order)", [str(node_key(n)) for n in kx],
           [str(node_key(n)) for n in kp])
    for k in sorted(set(xs) & set(ps), key=str):
        op_node(c, f"{path}/{k[0]}", xs[k], ps[k])


def op_profile(t, exe, paths, src, label):
    for group in ("program", "category", "provenance"):
        t.cases += 1
        c = Cmp(t, f"{label} by {group}")
        x = json.loads(xprof(paths, "op_profile", group_by=group)[0])
        p = profq_json(exe, "ops", "--format", "xprof", "--view", "op_profile", "--by", group,
                       src)
        trees = [k for k in sorted(set(x) | set(p)) if isinstance(x.get(k, p.get(k)), dict)]
        c.tree("", {k: v for k, v in x.items() if k not in trees},
               {k: v for k, v in p.items() if k not in trees})
        for k in trees:
            if k in x and k in p:
                op_node(c, f".{k}", x[k], p[k])


# ---------------------------------------------------------------------------------------------
# hlo_text: profq's HLO instruction printer (src/analysis/hlo_text.c, the text of hlo_stats'
# hlo_op_expression and op_profile's xla.expression) against XProf's own printer, on every
# instruction of every module XProf lists. XProf prints a module's text in graph_viewer
# (type long_txt) with options of its own: operands by name only and backend_config shown,
# where its op expressions print operand shapes and no backend_config. So the instruction's
# name, result shape, opcode, operand names and attributes are compared, backend_config
# taken out of XProf's; operand shapes are compared by hlo_text_xla.sh against XLA.


def balanced_end(s, i):
    """Index of the bracket closing the one at s[i]."""
    depth = 0
    for k in range(i, len(s)):
        if s[k] in "([{":
            depth += 1
        elif s[k] in ")]}":
            depth -= 1
            if depth == 0:
                return k
    return len(s) - 1


def hlo_parts(text):
    """(name, 'shape opcode', operands, attributes) of one instruction's text."""
    t = text.strip()
    if t.startswith("ROOT "):
        t = t[5:]
    name, rest = t.split(" = ", 1)
    i = 0
    while i < len(rest) and rest[i] != " ":  # the result shape: up to a space outside brackets
        i = balanced_end(rest, i) + 1 if rest[i] in "([{" else i + 1
    j = rest.index("(", i)
    k = balanced_end(rest, j)
    head, args = rest[:j], rest[j:k + 1]
    if not head.endswith((" parameter", " constant")):
        args = re.findall(r"%[^\s,()]+", args)
    attrs = re.sub(r', backend_config=(\{.*?\}|"(?:[^"\\]|\\.)*")(?=, [a-z_-]+=|$)', "",
                   rest[k + 1:])
    return name.lstrip("%"), head, args, attrs


def hlo_text(t, dump, xs, label):
    d = os.path.dirname(xs)
    for f in sorted(os.listdir(d)):
        if not f.endswith(".hlo_proto.pb"):
            continue
        mod = f[:-len(".hlo_proto.pb")]
        t.cases += 1
        c = Cmp(t, f"{label} {mod}")
        raw, ok = xprof([xs], "graph_viewer", module_name=mod, type="long_txt", node_name="")
        x = {}
        for line in raw.splitlines():
            line = line.strip()
            if line.startswith(("%", "ROOT %")) and " = " in line:
                n, *rest = hlo_parts(line)
                x[n] = rest
        r = subprocess.run([dump, os.path.join(d, f)], capture_output=True, text=True)
        c.leaf(".driver exit", 0, r.returncode)
        p = {}
        for line in r.stdout.splitlines():
            n, *rest = hlo_parts(line.split("\t", 1)[1])
            p[n] = rest
        # profq prints every instruction of the proto; XProf hides the computations its async
        # syntax sugar folds into <op>-start (hlo_text_xla.sh checks which those are)
        c.leaf(".instructions missing in profq", [], sorted(set(x) - set(p)))
        for n in sorted(set(x) & set(p)):
            c.tree(f" %{n}", dict(zip(("head", "operands", "attributes"), x[n])),
                   dict(zip(("head", "operands", "attributes"), p[n])))


# ---------------------------------------------------------------------------------------------


def inputs(data, hlo_dirs, jax_runs):
    """(label, session files, profq source, kind) for every input."""
    out = []
    xdir = os.path.join(data, "xplane")
    for f in sorted(os.listdir(xdir)):
        p = os.path.join(xdir, f)
        if f.endswith(".xplane.pb"):
            out.append((f, [p], "xplane"))
        elif os.path.isdir(p) and f != "corrupt":
            files = sorted(glob.glob(os.path.join(p, "*.xplane.pb")))
            if files:
                out.append((f + "/", files, "xplane"))
    for p in jax_runs:  # SCRATCH/<program>/plugins/profile/<run>/<host>.xplane.pb
        prog = os.path.basename(os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.dirname(p)))))
        out.append((f"jax-cpu:{prog}", [p], "xplane"))
    hlos = sorted(glob.glob(os.path.join(data, "hlo", "*")))
    for d in hlo_dirs:
        hlos += sorted(glob.glob(os.path.join(d, "**", "*.hlo_proto.pb"), recursive=True) +
                       glob.glob(os.path.join(d, "**", "*.hlo.pb"), recursive=True))
    for p in hlos:
        out.append((os.path.relpath(p, os.path.dirname(os.path.dirname(p))), [p], "hlo"))
    return out


def run(a, tools, scratch):
    for n, (label, files, kind) in enumerate(inputs(a.data, a.hlo_dir, a.jax_run)):
        d = os.path.join(scratch, f"in{n}")
        os.makedirs(d)
        if kind == "hlo":
            xs = os.path.join(d, "host.xplane.pb")
            open(xs, "wb").close()
            for m in profq_json(a.profq, "memory-viewer", "--format", "json", files[0])["modules"]:
                os.symlink(os.path.abspath(files[0]), os.path.join(d, m["module"] + ".hlo_proto.pb"))
            memory_viewer(tools["memory_viewer"], a.profq, xs, files[0], label, False)
            hlo_text(tools["hlo_text"], a.hlo_text_dump, xs, label)
            continue
        paths = []
        for f in files:
            paths.append(os.path.join(d, os.path.basename(f)))
            os.symlink(os.path.abspath(f), paths[-1])
        xprof(paths, "tool_names")  # writes the HloProtos beside the XSpace (memory_viewer)
        pq = profq_json(a.profq, "ops", "--format", "json", files[0])
        if pq.get("hardware") == "cpu":  # XProf's op tools are empty on a CPU run: so is
            c = Cmp(tools["hlo_stats"], label)  # profq's xprof format, not its own rows
            c.leaf(".profq's own CPU ops (non-empty)", True, len(pq.get("rows", [])) > 0)
        for f, xs in zip(files, paths):
            sub = label if len(files) == 1 else f"{label}{os.path.basename(f)}"
            memory_viewer(tools["memory_viewer"], a.profq, xs, f, sub, len(files) == 1)
            memory_profile(tools["memory_profile"], a.profq, xs, f, sub)
        hlo_text(tools["hlo_text"], a.hlo_text_dump, paths[0], label)
        hlo_stats(tools["hlo_stats"], a.profq, paths, files[0], label)
        op_profile(tools["op_profile"], a.profq, paths, files[0], label)
        roofline_model(tools["roofline_model"], a.profq, paths, files[0], label)
        print(f"xprof_all: {label} done", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profq", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--hlo-text-dump", required=True, help="build/tests/hlo_text_dump")
    ap.add_argument("--hlo-dir", action="append", default=[])
    ap.add_argument("--jax-run", action="append", default=[])
    ap.add_argument("--verbose", action="store_true", help="print every difference")
    a = ap.parse_args()
    tools = {n: Tool(n) for n in TOOLS}
    with tempfile.TemporaryDirectory(prefix="profq-xprof-all-") as scratch:
        run(a, tools, scratch)
    print("\nxprof_all: compared with XProf 2.24.2 (strings, integers exact; floats 1e-6 rel)")
    bad = 0
    for t in tools.values():
        known = sum(v[0] for v in t.known.values())
        print(f"  {t.name:15} {t.cases:4} cases {t.fields:9} fields  {len(t.bad)} differ"
              f"{f', {known} known (owned elsewhere)' if known else ''}")
        bad += len(t.bad)
    print("not deterministic in XProf, compared by rule (not by position):")
    for tool, what, why in NONDETERMINISTIC:
        print(f"  {tool}: {what}: {why}")
    used = {(t.name, cause) for t in tools.values() for cause in t.known}
    for tool, case, pat, owner, cause in KNOWN:
        if (tool, f"{owner}: {cause}") not in used:
            print(f"STALE known entry (matched nothing; remove it): {tool} {case} {pat}")
            bad += 1
    if any(t.known for t in tools.values()):
        print("owned elsewhere, known (to be removed when the owner's fix merges):")
        causes = collections.OrderedDict()
        for t in tools.values():
            for cause, (count, example) in t.known.items():
                causes.setdefault(cause, []).append((t.name, count, example))
        for cause, uses in causes.items():
            print(f"  {cause}\n    " + ", ".join(f"{n} {c} fields" for n, c, _ in uses))
            for n, _, example in uses:
                print(f"    e.g. {n} {example}")
    for t in tools.values():
        by_case = collections.OrderedDict()
        for where, msg in t.bad:
            by_case.setdefault(where, []).append(msg)
        for where, msgs in by_case.items():
            print(f"DIFF {t.name} {where}: {len(msgs)} fields")
            for m in msgs if a.verbose else msgs[:8]:
                print(f"    {m}")
    print(f"xprof_all: {'0 differences' if not bad else f'{bad} DIFFERENCES'}")
    return 1 if bad or not all(t.fields for t in tools.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
