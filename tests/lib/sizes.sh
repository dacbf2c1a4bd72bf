#!/usr/bin/env bash
# Checks the size rule of issue 11: every file in src/ is at most 1,000 lines and every
# function at most 150 lines, unless a comment says why. The marker phrase is
# "long because:" — in the first comment of a file (the comment that opens it) for a long
# file, or in the comment just above a function (ending on the line before its signature)
# for a long function; case and line breaks do not matter. Lists every offender and exits 1
# if there is any.
# Functions are measured on the clang-formatted code: one starts at a line matching
# ^[A-Za-z_].*\( (a macro such as TJ_INLINE may open it) followed, possibly after
# continuation lines, by a line "{", and ends at the next line "}". The count of functions
# measured is printed, so a change of style that hides them shows.
# Limits can be overridden for a test of this script: MAX_FILE, MAX_FUNC, SRC_DIR.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${SRC_DIR:-}" ]; then
  # Self-check first: a 160-line function is reported, and not once the comment says why.
  t=$(mktemp -d)
  trap 'rm -rf "$t"' EXIT
  mkdir "$t/src"
  { echo "/* t.c - a test. */"; echo "static int f(void)"; echo "{"
    for i in $(seq 160); do echo "    x();"; done; echo "}"; } > "$t/src/t.c"
  if SRC_DIR="$t/src" "$0" >/dev/null; then
    echo "sizes: the check missed a 163-line function"; exit 1
  fi
  sed -i '2i /* Long because: a test of the marker. */' "$t/src/t.c"
  if ! SRC_DIR="$t/src" "$0" >/dev/null; then
    echo "sizes: the check ignored a 'long because:' comment"; exit 1
  fi
fi
python3 - "${SRC_DIR:-$top/src}" "${MAX_FILE:-1000}" "${MAX_FUNC:-150}" <<'PY'
import os, re, sys

src, max_file, max_func = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
MARK = "long because:"
start_re = re.compile(r"^[A-Za-z_].*\(")
offenders = []
measured = 0

def says_why(comment):
    """Whether COMMENT holds the marker, wherever its lines wrap."""
    flat = " ".join(re.sub(r"[/*]", " ", comment).split()).lower()
    return MARK in flat

def first_comment(lines):
    """The comment that opens the file (block or consecutive // lines), as one string."""
    out, i = [], 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i < len(lines) and lines[i].lstrip().startswith("/*"):
        while i < len(lines):
            out.append(lines[i])
            if "*/" in lines[i]:
                break
            i += 1
    else:
        while i < len(lines) and lines[i].lstrip().startswith("//"):
            out.append(lines[i]); i += 1
    return "\n".join(out)

def comment_above(lines, k):
    """The comment ending on line k-1 (block or // lines), as one string."""
    j = k - 1
    if j < 0:
        return ""
    s = lines[j].rstrip()
    if s.endswith("*/"):
        out = []
        while j >= 0:
            out.append(lines[j])
            if "/*" in lines[j]:
                break
            j -= 1
        return "\n".join(reversed(out))
    out = []
    while j >= 0 and lines[j].lstrip().startswith("//"):
        out.append(lines[j]); j -= 1
    return "\n".join(reversed(out))

for root, _, files in sorted(os.walk(src)):
    for f in sorted(files):
        if not f.endswith((".c", ".h")):
            continue
        path = os.path.join(root, f)
        rel = os.path.relpath(path, os.path.dirname(src))
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if len(lines) > max_file and not says_why(first_comment(lines)):
            offenders.append(f"{rel}: {len(lines)} lines (over {max_file}, no '{MARK}' in the first comment)")
        k = 0
        while k < len(lines):
            if start_re.match(lines[k]) and not lines[k].rstrip().endswith(";"):
                # the signature may continue over several lines until "{" alone
                j = k
                while j < len(lines) and lines[j] != "{" and not lines[j].rstrip().endswith(";") \
                        and (j == k or not start_re.match(lines[j])) and j - k < 12:
                    j += 1
                if j < len(lines) and lines[j] == "{":
                    e = j + 1
                    while e < len(lines) and lines[e] != "}":
                        e += 1
                    n = e - k + 1
                    measured += 1
                    if n > max_func and not says_why(comment_above(lines, k)):
                        name = re.search(r"(\w+)\s*\(", lines[k])
                        name = name.group(1) if name else lines[k]
                        offenders.append(f"{rel}:{k + 1}: function {name} is {n} lines "
                                         f"(over {max_func}, no '{MARK}' in the comment above it)")
                    k = e + 1
                    continue
            k += 1

for o in offenders:
    print(o)
if offenders:
    print(f"sizes: {len(offenders)} offender(s) ({measured} functions measured); split them "
          f"or say why with '{MARK}'")
    sys.exit(1)
print(f"sizes: every file and every function ({measured} measured) is within its limit or says why")
PY
