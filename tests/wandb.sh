#!/usr/bin/env bash
# tests/wandb.sh - W&B inputs and publish through the official `wandb` command-line client.
#
# Suite contract (tests/run.sh): exit 0 pass, 77 skip (with a message), anything else fail.
# Checks, with a fake `wandb` on PATH that records its argv (one argument a line) and
# writes a small jax_profile artifact (plugins/profile/<ts>/perfetto_trace.json.gz):
#  1. summarize --artifact E/P/NAME:V runs exactly `wandb artifact get --root DIR --type
#     jax_profile E/P/NAME:V`, and the summary is computed from the downloaded files (hot
#     op self times of the fake trace), with run_metadata.artifact_ref/artifact_name set;
#     a bare NAME takes --entity/--project; the temporary folder is removed afterwards.
#  2. summarize --run-target: bare id with --entity/--project, entity/project/id,
#     entity/project/runs/id, wandb.ai and forge.coreweave.com URLs (query dropped) run
#     `wandb pull -e E -p P ID` inside the download folder; --download-root keeps files.
#  3. Bad targets: a bare id without --entity (exit 2, the seed's message), two parts,
#     a URL with too few parts, an option-like id; no wandb call is made for any of them.
#  4. wandb missing from PATH, credentials missing: exit 2 and one line naming what is
#     missing; the wandb client failing: exit 3 naming the command and the target.
#  5. bundle --before-run-target/--after-artifact, publish: the argv passed.
#  6. The real client (build/venv-wandb, made by scripts/venv.sh from
#     tests/wandb-requirements.txt): every argv profq builds passes its argument parser,
#     i.e. it fails only for want of network/credentials (exit 1), never a usage error
#     (exit 2, "No such option", "Usage:"). Skipped (77) only when PyPI is unreachable.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
PROFQ=${PROFQ:-$top/build/profq}
export SOURCE_DATE_EPOCH=1700000000
work=$(mktemp -d "${TMPDIR:-/tmp}/profq-wandb-test-XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() {
    failed=$((failed + 1))
    echo "FAIL: $*"
}
check() { # check DESCRIPTION EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then ok; else bad "$1: expected [$2] got [$3]"; fi
}

# The fake client and the small trace it "downloads".
mkdir -p "$work/bin" "$work/home" "$work/tmp"
python3 - "$work/trace.json.gz" <<'PY' || { echo "wandb: cannot write the fixture"; exit 1; }
import gzip, json, sys
ev = [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "/device:TPU:0"}},
      {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "XLA Ops"}}]
t = 0
for i in range(3):
    ev.append({"ph": "X", "pid": 1, "tid": 1, "name": "fusion.7", "ts": t, "dur": 40})
    ev.append({"ph": "X", "pid": 1, "tid": 1, "name": "convolution.2", "ts": t + 50, "dur": 25})
    t += 100
with gzip.open(sys.argv[1], "wt") as f:
    json.dump({"traceEvents": ev, "displayTimeUnit": "ns"}, f)
PY
cat >"$work/bin/wandb" <<EOF
#!/bin/sh
# Fake wandb: records argv and cwd, writes the jax_profile layout where asked.
log=$work/argv.log
echo wandb >"\$log"
for a in "\$@"; do printf '%s\n' "\$a" >>"\$log"; done
pwd >"$work/cwd.log"
[ -n "\${FAKE_WANDB_FAIL:-}" ] && { echo "wandb: ERROR fake failure" >&2; exit 1; }
case "\$1 \$2" in
"artifact get") root=\$4 ;;
"artifact put") exit 0 ;;
pull*) root=. ;;
*) echo "fake wandb: unexpected \$*" >&2; exit 2 ;;
esac
mkdir -p "\$root/plugins/profile/2024_01_01_00_00_00"
cp "$work/trace.json.gz" "\$root/plugins/profile/2024_01_01_00_00_00/perfetto_trace.json.gz"
EOF
chmod +x "$work/bin/wandb"
export HOME=$work/home TMPDIR=$work/tmp WANDB_API_KEY=fake-key-for-tests
unset NETRC WANDB_BASE_URL WANDB_IDENTITY_TOKEN_FILE WANDB_ENTITY WANDB_PROJECT
FPATH="$work/bin:/usr/bin:/bin"
argv_of() { tr '\n' ' ' <"$work/argv.log" | sed 's| $||'; }
hot() { # self times of the hot ops, as "name=total ..." sorted by name
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(sorted("%s=%g" % (h["name"], h["exclusive_duration"]) for h in d["hot_ops"])))
' "$1"
}
meta() { python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["run_metadata"]
print(" ".join("%s=%s" % (k, m[k]) for k in ("artifact_ref", "artifact_name", "run_path", "run_id")))
' "$1"; }

# 1. --artifact
rm -f "$work/argv.log"
PATH=$FPATH "$PROFQ" summarize --artifact ent/proj/jax-prof:v3 >"$work/s1.json" 2>"$work/err"
check "artifact exit" 0 $?
root=$(sed -n 5p "$work/argv.log")
check "artifact argv" "wandb artifact get --root $root --type jax_profile ent/proj/jax-prof:v3" \
    "$(argv_of)"
case $root in "$work/tmp/profq-wandb-"*) ok ;; *) bad "artifact root not a temporary folder: $root" ;; esac
[ -e "$root" ] && bad "temporary download folder left behind: $root" || ok
check "artifact hot ops" "convolution.2=75 fusion.7=120" "$(hot "$work/s1.json")"
check "artifact run_metadata" \
    "artifact_ref=ent/proj/jax-prof:v3 artifact_name=jax-prof:v3 run_path=None run_id=None" \
    "$(meta "$work/s1.json")"
# The same summary as summarizing the files directly (apart from where they were).
mkdir -p "$work/direct/plugins/profile/2024_01_01_00_00_00"
cp "$work/trace.json.gz" "$work/direct/plugins/profile/2024_01_01_00_00_00/perfetto_trace.json.gz"
"$PROFQ" summarize "$work/direct" >"$work/direct.json"
check "artifact summary = direct summary" \
    "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [d.pop(k) for k in ("run_metadata","source_path")]; print(json.dumps(d, sort_keys=True))' "$work/direct.json")" \
    "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [d.pop(k) for k in ("run_metadata","source_path")]; print(json.dumps(d, sort_keys=True))' "$work/s1.json")"
PATH=$FPATH "$PROFQ" summarize --artifact jax-prof --entity e2 --project p2 >/dev/null 2>&1
check "bare artifact name" "wandb artifact get --root $(sed -n 5p "$work/argv.log") --type jax_profile e2/p2/jax-prof" "$(argv_of)"
PATH=$FPATH "$PROFQ" summarize --artifact p3/jax-prof:latest --entity e3 >/dev/null 2>&1
check "project/name artifact" "e3/p3/jax-prof:latest" "$(tail -n 1 "$work/argv.log")"

# 2. --run-target forms
for spec in "abc123 --entity ent --project proj|ent proj abc123" \
    "ent/proj/abc123|ent proj abc123" \
    "ent/proj/runs/abc123|ent proj abc123" \
    "https://wandb.ai/marin-community/marin/runs/abc123|marin-community marin abc123" \
    "https://wandb.ai/marin-community/marin/runs/abc123?nw=x#top|marin-community marin abc123" \
    "https://wandb.ai/ent/proj/xyz9|ent proj xyz9" \
    "https://forge.coreweave.com/wandb/ent/proj/runs/r42|ent proj r42"; do
    args=${spec%%|*} want=${spec#*|}
    set -- $want
    rm -f "$work/argv.log"
    # shellcheck disable=SC2086
    PATH=$FPATH "$PROFQ" summarize --run-target $args >"$work/s2.json" 2>"$work/err"
    check "run-target $args exit" 0 $?
    check "run-target $args argv" "wandb pull -e $1 -p $2 $3" "$(argv_of)"
    check "run-target $args metadata" \
        "artifact_ref=None artifact_name=None run_path=$1/$2/$3 run_id=$3" "$(meta "$work/s2.json")"
    check "run-target $args hot ops" "convolution.2=75 fusion.7=120" "$(hot "$work/s2.json")"
done
PATH=$FPATH "$PROFQ" summarize --run-target e/p/r7 --download-root "$work/dl" -o "$work/s3.json" \
    >"$work/out" 2>&1
check "download-root exit" 0 $?
check "pull runs in DIR/RUN_ID" "$work/dl/r7" "$(cat "$work/cwd.log")"
[ -f "$work/dl/r7/plugins/profile/2024_01_01_00_00_00/perfetto_trace.json.gz" ] && ok ||
    bad "--download-root did not keep the files"
check "-o prints the path" "$work/s3.json" "$(cat "$work/out")"
PATH=$FPATH "$PROFQ" summarize --artifact e/p/a:v1 --download-root "$work/dl" >/dev/null 2>&1
check "artifact under download-root" "wandb artifact get --root $work/dl/a:v1 --type jax_profile e/p/a:v1" "$(argv_of)"

# 3. Bad targets: exit 2, one line, no wandb call.
for spec in "abc123|Bare run ids require --entity and --project." \
    "abc123 --entity e|Bare run ids require --entity and --project." \
    "ent/proj|Unrecognized run target: ent/proj" \
    "https://wandb.ai/ent/proj|could not parse run information from URL: https://wandb.ai/ent/proj" \
    "e/p/-rf|Unrecognized run target: e/p/-rf"; do
    args=${spec%%|*} want=${spec#*|}
    rm -f "$work/argv.log"
    # shellcheck disable=SC2086
    PATH=$FPATH "$PROFQ" summarize --run-target $args >/dev/null 2>"$work/err"
    check "bad target $args exit" 2 $?
    check "bad target $args message" \
        "profq summarize: $want (see 'profq help summarize')" "$(cat "$work/err")"
    [ -e "$work/argv.log" ] && bad "bad target $args still ran wandb" || ok
done
for ref in e/p a//b x/y/z/w -x; do
    PATH=$FPATH "$PROFQ" summarize --artifact "$ref" >/dev/null 2>"$work/err"
    check "bad artifact $ref exit" 2 $?
    grep -q "^profq summarize: --artifact wants ENTITY/PROJECT/NAME" "$work/err" && ok ||
        bad "bad artifact $ref message: $(cat "$work/err")"
done
"$PROFQ" summarize >/dev/null 2>"$work/err"
check "no source" "profq summarize: Specify one of --trace-file, --xplane-file, --profile-dir, --artifact, or --run-target. (see 'profq help summarize')" "$(cat "$work/err")"

# 4. What is missing.
PATH=/usr/bin:/bin "$PROFQ" summarize --artifact e/p/a:v0 >/dev/null 2>"$work/err"
check "no wandb exit" 2 $?
check "no wandb message" "profq: --artifact needs the official W&B command-line client \`wandb\` on PATH (pip install wandb); it was not found" "$(cat "$work/err")"
PATH=/usr/bin:/bin "$PROFQ" publish --summary "$work/s1.json" >/dev/null 2>"$work/err"
check "publish no wandb exit" 2 $?
grep -q "^profq: publish (--dry-run shows the plan without W&B) needs the official W&B command-line client" "$work/err" && ok ||
    bad "publish no wandb message: $(cat "$work/err")"
PATH=$FPATH WANDB_API_KEY= "$PROFQ" summarize --run-target e/p/r >/dev/null 2>"$work/err"
check "no credentials exit" 2 $?
check "no credentials message" "profq: --run-target needs W&B credentials: set WANDB_API_KEY or run \`wandb login\` (neither was found)" "$(cat "$work/err")"
# A netrc entry of `wandb login` counts as credentials (only its presence is checked).
printf 'machine api.wandb.ai\n  login user\n  password xxxx\n' >"$work/home/.netrc"
PATH=$FPATH WANDB_API_KEY= "$PROFQ" summarize --run-target e/p/r >/dev/null 2>&1
check "netrc login accepted" 0 $?
rm -f "$work/home/.netrc"
PATH=$FPATH FAKE_WANDB_FAIL=1 "$PROFQ" summarize --artifact e/p/a:v0 >/dev/null 2>"$work/err"
check "wandb failing exit" 3 $?
check "wandb failing message" "profq: \`wandb artifact get\` failed (exit 1) for e/p/a:v0" "$(grep -v '^wandb: ' "$work/err")"
PATH=$FPATH FAKE_WANDB_FAIL=1 "$PROFQ" summarize --run-target e/p/r >/dev/null 2>"$work/err"
check "wandb pull failing message" "profq: \`wandb pull\` failed (exit 1) for e/p/r" "$(grep -v '^wandb: ' "$work/err")"
# A run whose files hold no trace: the hint names --artifact.
cat >"$work/bin2-wandb" <<EOF
#!/bin/sh
echo config > config.yaml
EOF
mkdir -p "$work/bin2" && mv "$work/bin2-wandb" "$work/bin2/wandb" && chmod +x "$work/bin2/wandb"
PATH="$work/bin2:/usr/bin:/bin" "$PROFQ" summarize --run-target e/p/r >/dev/null 2>"$work/err"
check "run without trace exit" 3 $?
check "run without trace message" "profq: run e/p/r: no profile trace among the run's files (wandb pull); give its jax_profile artifact with --artifact (\`wandb artifact ls --type jax_profile e/p\` lists them)" "$(cat "$work/err")"

# 5. bundle and publish.
rm -f "$work/argv.log"
PATH=$FPATH "$PROFQ" bundle --before-run-target e/p/r1 --after-artifact e/p/prof:v2 \
    -o "$work/bundle" >"$work/manifest.json" 2>"$work/err"
check "bundle exit" 0 $?
check "bundle after argv" "wandb artifact get --root $(sed -n 5p "$work/argv.log") --type jax_profile e/p/prof:v2" "$(argv_of)"
check "bundle before metadata" "artifact_ref=None artifact_name=None run_path=e/p/r1 run_id=r1" \
    "$(meta "$work/bundle/before.summary.json")"
check "bundle after metadata" "artifact_ref=e/p/prof:v2 artifact_name=prof:v2 run_path=None run_id=None" \
    "$(meta "$work/bundle/after.summary.json")"
"$PROFQ" bundle --before-run-target e/p/r1 -o "$work/b2" >/dev/null 2>"$work/err"
check "bundle one side missing" 2 $?
PATH=$FPATH "$PROFQ" bundle --before "$work/s1.json" --before-run-target e/p/r1 --after "$work/s2.json" \
    -o "$work/b3" >/dev/null 2>&1
check "bundle: a summary path wins over a run target" "$(meta "$work/s1.json")" \
    "$(meta "$work/b3/before.summary.json")"
rm -f "$work/argv.log"
PATH=$FPATH "$PROFQ" publish --summary "$work/s1.json" --entity ent --project proj \
    --artifact-name my-sum --alias latest --alias best >"$work/pub.json" 2>"$work/err"
check "publish exit" 0 $?
pdir=$(tail -n 1 "$work/argv.log")
check "publish argv" "wandb artifact put --name proj/my-sum --type profile_summary --alias latest --alias best $pdir" "$(argv_of)"
[ -e "$pdir" ] && bad "publish staging folder left behind: $pdir" || ok

# 6. The real client's argument parser accepts every argv profq builds.
if [ "${PROFQ_SKIP_REAL_WANDB:-}" = 1 ]; then
    echo "wandb: real client check not run (PROFQ_SKIP_REAL_WANDB=1)"
elif py=$("$top/scripts/venv.sh" wandb "$here/wandb-requirements.txt" 2>"$work/venv.err"); then
    real="$(dirname "$py")"
    # An unroutable server, so the client fails fast at its first request, after parsing.
    export WANDB_BASE_URL=http://127.0.0.1:9 WANDB_API_KEY=0123456789abcdef0123456789abcdef01234567
    export WANDB_DIR=$work/wandbdir WANDB_CACHE_DIR=$work/wandbcache WANDB_CONFIG_DIR=$work/wandbcfg
    export WANDB_SILENT=true WANDB_HTTP_TIMEOUT=5
    mkdir -p "$WANDB_DIR"
    for cmd in "summarize --artifact ent/proj/jax-prof:v3" "summarize --run-target ent/proj/abc123" \
        "publish --summary $work/s1.json --entity ent --project proj --alias latest"; do
        # shellcheck disable=SC2086
        PATH="$real:/usr/bin:/bin" timeout 120 "$PROFQ" $cmd >/dev/null 2>"$work/err"
        rc=$?
        if grep -q "No such option\|Usage: wandb\|Missing argument\|Got unexpected extra" "$work/err" ||
            grep -q "failed (exit 2)" "$work/err"; then
            bad "real wandb rejected the argv of '$cmd': $(head -c 600 "$work/err")"
        elif grep -q "^profq: .*failed (exit [0-9]*)" "$work/err"; then
            ok # parsed, then failed for want of a server
        elif grep -q "Failed to verify credentials" "$work/err"; then
            # Parsed, then stuck retrying the unroutable server (the client's service
            # process sometimes waits minutes before giving up): the argv was accepted.
            ok
        else
            bad "real wandb, '$cmd': unexpected outcome (exit $rc): $(head -c 600 "$work/err")"
        fi
    done
else
    echo "wandb: SKIP: real client unavailable ($(tail -n 1 "$work/venv.err"))"
    echo "$passed passed, $failed failed"
    [ $failed -eq 0 ] || exit 1
    exit 77
fi

echo "wandb: $passed passed, $failed failed"
[ $failed -eq 0 ]
