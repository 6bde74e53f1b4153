#!/bin/sh
# outdir_test.sh: --out never loses or misplaces a run's outputs (docs/outputs.md
# "Outputs"; src/metrics/outdir.c). A symbolic link to a directory keeps
# pointing there and its target receives the set; a file put into the
# directory during a run stays there; a mount point (tmpfs, and a bind
# mount of the same file system) is written into in place and keeps what
# else it holds; a run killed with SIGKILL leaves a staging directory that
# the next run into the same place removes, while one of a live process
# stays. The mount checks need root and a working mount(8), else they print
# "skip". Prints one "ok", "FAIL" or "skip" line per check (run_all.sh
# counts them).
# Environment: SPRAYSIM (default bin/spraysim), SHARED (default ../shared).

SPRAYSIM=${SPRAYSIM:-bin/spraysim}
SHARED=${SHARED:-../shared}
M=$SHARED/data/htsim/matrices
case $SPRAYSIM in
/*) ;;
*) SPRAYSIM=$(pwd)/$SPRAYSIM ;;
esac

T=$(mktemp -d "${TMPDIR:-/tmp}/spraysim-outdir.XXXXXX") || { echo "FAIL outdir: mktemp -d"; exit 1; }
MOUNTED=
cleanup() {
    for m in $MOUNTED; do umount "$m" 2>/dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'cleanup; exit 1' HUP INT TERM

ok() { echo "ok outdir $*"; }
fail() { echo "FAIL outdir $*"; }
skip() { echo "skip outdir $*"; }

# run ARGS...: status in $rc, stderr in $T/err
run() {
    "$SPRAYSIM" "$@" --quiet --no-progress >/dev/null 2>"$T/err" </dev/null
    rc=$?
}
lines() { wc -l <"$1" | tr -d ' '; }
# staging directories (and kept ones) anywhere under $1
stagings() { find "$1" -mindepth 1 -name '*spraysim-*' | sed "s|$T/||"; }

# a run long enough (a few seconds) to act on while it runs
sh tools/gen_cm.sh incast 1024 0 2000000 >"$T/big.cm" 2>/dev/null

# --- missing parents are made as mkdir -p makes them: mode 0755 less the
# umask (issue 26: a mode of decimal 756 survived)
(umask 022 && "$SPRAYSIM" -tm "$M/one.cm" --quiet --no-progress --out "$T/made/deep/set" >/dev/null 2>"$T/err" </dev/null)
if [ "$(stat -c %a "$T/made" 2>/dev/null)" = 755 ] && [ "$(stat -c %a "$T/made/deep" 2>/dev/null)" = 755 ] && [ -s "$T/made/deep/set/flows.csv" ]; then
    ok "--out's missing parents are made with mode 0755 under umask 022"
else
    fail "--out's missing parents: modes $(stat -c %a "$T/made" "$T/made/deep" 2>&1 | tr '\n' ' ')"
fi

# --- a symbolic link: the set goes into the target, the link stays
mkdir "$T/real"
run -tm "$M/one.cm" --out "$T/real"
ln -s real "$T/link"
run -tm "$M/bidir.cm" --out "$T/link/"
if [ "$rc" -eq 0 ] && [ -L "$T/link" ] && [ "$(readlink "$T/link")" = real ] &&
    [ "$(lines "$T/real/flows.csv")" = 3 ] && [ -s "$T/real/summary.json" ] && [ -z "$(stagings "$T")" ]; then
    ok "--out through a symlink writes into its target and keeps the link"
else
    fail "--out through a symlink: rc $rc, link $(readlink "$T/link"), target's flows.csv $(lines "$T/real/flows.csv" 2>&1) lines, $(stagings "$T")"
fi
ln -s nowhere "$T/dangling"
run -tm "$M/one.cm" --out "$T/dangling"
if [ "$rc" -eq 2 ] && [ "$(lines "$T/err")" = 1 ] && grep -q "^spraysim: --out $T/dangling: a symbolic link to nothing" "$T/err"; then
    ok "--out naming a dangling symlink: one line, exit 2"
else
    fail "--out naming a dangling symlink: rc $rc, $(head -n 2 "$T/err")"
fi

# --- a file put into the directory during the run stays there
run -tm "$M/one.cm" --out "$T/set"
"$SPRAYSIM" -tm "$T/big.cm" -end 2000 --quiet --no-progress --out "$T/set" >/dev/null 2>"$T/err" &
pid=$!
k=0
while [ $k -lt 200 ] && [ -z "$(stagings "$T")" ]; do sleep 0.05; k=$((k + 1)); done
echo mine >"$T/set/notes.txt"
wait $pid
rc=$?
if [ "$rc" -eq 0 ] && [ "$(cat "$T/set/notes.txt" 2>/dev/null)" = mine ] && [ "$(lines "$T/set/flows.csv")" = 1024 ] &&
    [ -s "$T/set/summary.json" ] && grep -q "warning: --out $T/set: 'notes.txt' was put there during the run" "$T/err" &&
    [ -z "$(stagings "$T")" ]; then
    ok "a file put into --out during the run stays there, with a warning, beside the new set"
else
    fail "a file put into --out during the run: rc $rc, notes.txt '$(cat "$T/set/notes.txt" 2>&1)', flows.csv $(lines "$T/set/flows.csv") lines, $(stagings "$T"), $(head -n 1 "$T/err")"
fi

# --- a staging directory left by SIGKILL goes at the next run into the same place
mkdir "$T/k"
"$SPRAYSIM" -tm "$T/big.cm" -end 2000 --quiet --no-progress --out "$T/k/set" >/dev/null 2>&1 &
pid=$!
k=0
while [ $k -lt 200 ] && [ -z "$(stagings "$T/k")" ]; do sleep 0.05; k=$((k + 1)); done
kill -KILL $pid 2>/dev/null
wait $pid 2>/dev/null
left=$(stagings "$T/k")
# one of a live process (this shell) stays
host=$(hostname 2>/dev/null | tr -c 'A-Za-z0-9.\n' '_')
live="$T/k/.set.spraysim-$host-$$-abcdef"
mkdir "$live"
run -tm "$M/one.cm" --out "$T/k/set"
if [ -n "$left" ] && [ "$rc" -eq 0 ] && [ "$(stagings "$T/k")" = "k/.set.spraysim-$host-$$-abcdef" ] &&
    [ -s "$T/k/set/summary.json" ]; then
    ok "a killed run's staging directory is removed by the next run; a live process's stays"
else
    fail "staging after SIGKILL: left '$left', rc $rc, now '$(stagings "$T/k")'"
fi
rm -rf "$T/k"
# a dead process's staging directory holding only spraysim's own files, its
# temporaries of both kinds (NAME.tmp.PID, .NAME.spraysim-tmp.PID) included,
# is removed without a word; one whose "PID" is beyond any process ID
# (2147483649 > INT_MAX) is not a staging name and stays
mkdir -p "$T/k"
dead=$(sh -c 'echo $$')
stale="$T/k/.set.spraysim-$host-$dead-abcdef"
huge="$T/k/.set.spraysim-$host-2147483649-abcdef"
mkdir "$stale" "$huge"
: >"$stale/flows.csv"
: >"$stale/queues.csv.tmp.$dead"
: >"$stale/.summary.json.spraysim-tmp.$dead"
run -tm "$M/one.cm" --out "$T/k/set"
if [ "$rc" -eq 0 ] && [ ! -e "$stale" ] && [ -d "$huge" ] && [ ! -s "$T/err" ]; then
    ok "a dead run's staging with its temporaries is removed quietly; a PID beyond INT_MAX is not a staging name"
else
    fail "stale staging: rc $rc, now '$(stagings "$T/k" | tr '\n' ' ')', stderr '$(head -c 200 "$T/err")'"
fi
rm -rf "$T/k"
# a staging directory that cannot be made beside the target for another
# reason than permission (here its name, one component of .NAME.spraysim-
# HOST-PID-XXXXXX, exceeds 255 bytes for a 240-byte NAME) is refused in one
# line naming --out, the existing directory left as it was: only a parent
# spraysim may not write sends the set into the directory in place (issue
# 26: taking any error but EPERM for one survived)
long=$(printf '%0240d' 0)
mkdir -p "$T/ln/$long"
run -tm "$M/one.cm" --out "$T/ln/$long"
if [ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "--out .*: cannot write beside it" "$T/err" &&
    [ -z "$(ls -A "$T/ln/$long")" ]; then
    ok "a staging name too long beside --out: one line naming --out, exit 2, the directory untouched"
else
    fail "staging name too long: rc $rc, $(head -c 120 "$T/err"), in it: '$(ls -A "$T/ln/$long" | tr '\n' ' ')'"
fi
rm -rf "$T/ln"
# a directory whose parent cannot be written while it can (a shared
# results directory, say): the set is written into it in place, as for a
# mount point (outdir.c: mkdtemp beside it fails with EACCES). Root writes
# anywhere, so the run is made as nobody (setpriv; skipped where nobody
# cannot run the binary). Issue 26: taking any other error for EACCES
# survived.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 &&
    setpriv --reuid=nobody --regid=nogroup --clear-groups "$SPRAYSIM" --version >/dev/null 2>&1; then
    chmod 755 "$T"
    mkdir -p "$T/ro/parent/target"
    chown nobody "$T/ro/parent/target"
    cp "$M/one.cm" "$T/ro/one.cm"
    chmod 644 "$T/ro/one.cm"
    setpriv --reuid=nobody --regid=nogroup --clear-groups "$SPRAYSIM" -tm "$T/ro/one.cm" --quiet --no-progress \
        --out "$T/ro/parent/target" >/dev/null 2>"$T/err" </dev/null
    rc=$?
    if [ "$rc" -eq 0 ] && [ -s "$T/ro/parent/target/summary.json" ] && [ -z "$(stagings "$T/ro")" ]; then
        ok "--out whose parent nobody may write: the set is written into it in place"
    else
        fail "--out with a parent it cannot write: rc $rc, $(head -n 1 "$T/err"), left '$(stagings "$T/ro" | tr '\n' ' ')'"
    fi
    rm -rf "$T/ro"
else
    skip "--out with a parent it cannot write: needs root, setpriv and a binary nobody may run"
fi
# the host in a staging name keeps [A-Za-z0-9.] and makes anything else
# '_' (outdir.c host_tag), whatever the machine is called: a run on a host
# named az-AZ.09 (in a UTS namespace of its own; root only) removes a dead
# run's staging tagged az_AZ.09 and leaves one tagged with the name as it
# is, which is no staging name of this host; a 64-character name is kept
# whole (issue 26: host_tag's 'z' made '_', and a host buffer 2 bytes
# short, survived on a machine called vm)
if unshare -u true 2>/dev/null; then
    mkdir -p "$T/k"
    dead=$(sh -c 'echo $$')
    tagged="$T/k/.set.spraysim-az_AZ.09-$dead-abcdef"
    as_is="$T/k/.set.spraysim-az-AZ.09-$dead-abcdef"
    mkdir "$tagged" "$as_is"
    : >"$tagged/flows.csv"
    unshare -u sh -c 'hostname az-AZ.09 && exec "$@"' sh "$SPRAYSIM" -tm "$M/one.cm" --quiet --no-progress \
        --out "$T/k/set" >/dev/null 2>"$T/err" </dev/null
    rc=$?
    if [ "$rc" -eq 0 ] && [ ! -e "$tagged" ] && [ -d "$as_is" ] && [ -s "$T/k/set/summary.json" ]; then
        ok "on a host named az-AZ.09 a dead run's staging tagged az_AZ.09 is removed, one tagged az-AZ.09 stays"
    else
        fail "host tag: rc $rc, now '$(stagings "$T/k" | tr '\n' ' ')', stderr '$(head -c 200 "$T/err")'"
    fi
    rm -rf "$T/k"
    # a name of 64 characters, the longest Linux takes, is kept whole
    long=h123456789012345678901234567890123456789012345678901234567890123
    mkdir -p "$T/k"
    tagged="$T/k/.set.spraysim-$long-$dead-abcdef"
    mkdir "$tagged"
    : >"$tagged/flows.csv"
    # shellcheck disable=SC2016 # the inner shell expands them
    unshare -u sh -c 'hostname "$0" && shift && exec "$@"' "$long" sh "$SPRAYSIM" -tm "$M/one.cm" --quiet \
        --no-progress --out "$T/k/set" >/dev/null 2>"$T/err" </dev/null
    rc=$?
    if [ "${#long}" -eq 64 ] && [ "$rc" -eq 0 ] && [ ! -e "$tagged" ] && [ -s "$T/k/set/summary.json" ]; then
        ok "on a host with a 64-character name a dead run's staging tagged with all of it is removed"
    else
        fail "64-character host tag: rc $rc, now '$(stagings "$T/k" | tr '\n' ' ')', stderr '$(head -c 200 "$T/err")'"
    fi
    rm -rf "$T/k"
else
    skip "the staging names' host tag: no UTS namespace here (unshare -u needs root)"
fi

# --- mount points: written into in place
if [ "$(id -u)" != 0 ] || ! command -v mount >/dev/null 2>&1; then
    skip "mount points: needs root and mount(8)"
    skip "bind mounts: needs root and mount(8)"
    exit 0
fi
mkdir "$T/tmpfs"
if ! mount -t tmpfs spraysim-test "$T/tmpfs" 2>/dev/null; then
    skip "mount points: mount -t tmpfs is not permitted here"
else
    MOUNTED="$T/tmpfs"
    echo keep >"$T/tmpfs/lost+found"
    run -tm "$M/one.cm" --switch-stats --out "$T/tmpfs"
    rc1=$rc
    run -tm "$M/bidir.cm" --out "$T/tmpfs"
    if [ "$rc1" -eq 0 ] && [ "$rc" -eq 0 ] && [ "$(lines "$T/tmpfs/flows.csv")" = 3 ] && [ -s "$T/tmpfs/summary.json" ] &&
        [ -s "$T/tmpfs/queues.csv" ] && [ ! -e "$T/tmpfs/switches.csv" ] &&
        [ "$(cat "$T/tmpfs/lost+found")" = keep ] && [ -z "$(stagings "$T")" ]; then
        ok "--out naming a tmpfs mount point writes into it, twice, keeping its other files (stale switches.csv gone)"
    else
        fail "--out naming a mount point: rc $rc1 then $rc, $(head -n 1 "$T/err"), files: $(ls -A "$T/tmpfs" | tr '\n' ' ')"
    fi
fi
mkdir "$T/bsrc" "$T/bind"
if ! mount --bind "$T/bsrc" "$T/bind" 2>/dev/null; then
    skip "bind mounts: mount --bind is not permitted here"
else
    MOUNTED="$MOUNTED $T/bind"
    run -tm "$M/bidir.cm" --out "$T/bind"
    if [ "$rc" -eq 0 ] && [ "$(lines "$T/bsrc/flows.csv")" = 3 ] && [ -s "$T/bsrc/summary.json" ] && [ -z "$(stagings "$T")" ]; then
        ok "--out naming a bind mount of the same file system writes into it"
    else
        fail "--out naming a bind mount: rc $rc, $(head -n 1 "$T/err"), files: $(ls -A "$T/bsrc" | tr '\n' ' ')"
    fi
    # a mount point whose name /proc/self/mountinfo writes escaped (a
    # backslash is \134 there): it must be decoded to be recognised as one,
    # and so keep the file it already holds instead of refusing it as a
    # foreign entry (issue 26: the escape test flipped went unnoticed)
    mkdir "$T/bsrc2" "$T/bi\\nd"
    echo keep >"$T/bsrc2/notes.txt"
    if ! mount --bind "$T/bsrc2" "$T/bi\\nd" 2>/dev/null; then
        skip "bind mounts: a second mount --bind is not permitted here"
    else
        MOUNTED="$MOUNTED $T/bi\\nd"
        run -tm "$M/bidir.cm" --out "$T/bi\\nd"
        if [ "$rc" -eq 0 ] && [ "$(lines "$T/bsrc2/flows.csv")" = 3 ] && [ "$(cat "$T/bsrc2/notes.txt")" = keep ] &&
            [ -z "$(stagings "$T")" ]; then
            ok "--out naming a bind mount with a backslash in its name (escaped in mountinfo) writes into it, keeping its other file"
        else
            fail "--out naming a bind mount with an escaped name: rc $rc, $(head -n 1 "$T/err"), files: $(ls -A "$T/bsrc2" | tr '\n' ' ')"
        fi
    fi
fi

# ---- mutmw (issue 26): live stagings beside a dead one -------------------
# A dead process's staging directory and twelve of a live process (this
# shell) beside it: only the dead one goes, whatever order the directory
# lists them in (a mutant that read errno after a kill() that succeeded
# took a live staging read after the dead one, whose ESRCH was still in
# errno, for stale). The directory order decides whether a live one comes
# after the dead one: with twelve, all but one order in thirteen do.
mkdir -p "$T/k"
dead=$(sh -c 'echo $$')
mkdir "$T/k/.set.spraysim-$host-$dead-abcdef"
for x in a b c d e f g h i j k l; do
    mkdir "$T/k/.set.spraysim-$host-$$-abcde$x"
done
run -tm "$M/one.cm" --out "$T/k/set"
if [ "$rc" -eq 0 ] && [ ! -e "$T/k/.set.spraysim-$host-$dead-abcdef" ] &&
    [ "$(stagings "$T/k" | grep -c -- "-$$-abcde")" = 12 ]; then
    ok "a dead run's staging is removed; twelve of a live process beside it all stay"
else
    fail "live stagings beside a dead one: rc $rc, now '$(stagings "$T/k" | tr '\n' ' ')'"
fi
rm -rf "$T/k"
