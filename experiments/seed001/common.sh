# Seed 001's (SIRD) evaluation setup as presets: sourced by the scripts in
# experiments/seed001/ (POSIX sh). Everything here is a flag set of
# bin/spraysim; each value cites specs/sird.md (the paper's Sec. 5.1,
# Table 2) or the docs/ section that maps it onto flags.
#
#   . experiments/seed001/common.sh
#   args=$(s1_args PROTO SCENARIO WK LOAD)   # the whole command line but the binary and --out
#
# PROTO    sird | homa | dctcp | swift | nscc, or dctcp40 | swift40 (40 persistent
#          connections per host pair, as seed 001 runs DCTCP and Swift)
# SCENARIO balanced | core | incast                      (sird.md Sec. 2.4)
# WK       wka | wkb | wkc                               (sird.md Sec. 2.2)
# LOAD     applied load as a fraction (0.5): payload rate / host link rate,
#          headers excluded; in "core" a fraction of core capacity.
#
# Window per workload (S1_WARM_US, S1_STOP_US, S1_END_US, overridable):
# messages created in [warm, stop) are measured; arrivals stop at stop; the
# run drains until end (sird.md Sec. 2.3 [ours]).

W1=${W1:-../shared/data/workloads}
TOPO_BALANCED=experiments/sird_balanced_144.topo # 9 ToRs x 16, 4 spines, 100/400 G (sird.md Sec. 2.1)
TOPO_CORE=experiments/sird_core_144.topo         # the same with 200 G uplinks (sird.md Sec. 2.1, 2.4)

# Network: MTU 1500 (MSS 1436, sird.md Sec. 2.1 [ours]); infinite buffers
# (P Sec. 5.1); switch buffer totals for ToR queuing (sird.md Sec. 2.5);
# one seed, the project's default.
S1_NET="-mtu 1500 -q inf --switch-stats --no-progress"

s1_cdf() {
    case $1 in
    wka) echo "$W1/google_all_rpc.cdf" ;;
    wkb) echo "$W1/facebook_hadoop.cdf" ;;
    wkc) echo "$W1/websearch.cdf" ;;
    *) echo "s1_cdf: unknown workload $1" >&2; return 2 ;;
    esac
}

# Protocol flags (docs/models.md "Transport: SIRD", "Transport: Homa" and its
# table of seed 001's Table 2 settings for DCTCP and Swift).
s1_proto() { # PROTO WK
    case $1 in
    sird) echo "--transport sird --lb random" ;; # Table 2 defaults; per-packet random spraying
    homa)                                        # HomaSim k: 4 for WKa (W3), 7 for WKb/WKc (sird.md Sec. 4)
        if [ "$2" = wka ]; then echo "--transport homa --lb random --homa-opt k=4"; else echo "--transport homa --lb random"; fi ;;
    dctcp | dctcp40) echo "--cc dctcp --cc-opt g=0.08 -ecn 84 84 -paths 1" ;; # g 0.08, K = 1.25 BDP (84 x 1500 B), ECMP
    swift | swift40) echo "--cc swift -paths 1" ;;                              # Swift defaults = Table 2; ECMP
    nscc) echo "--cc nscc" ;;                                         # spraysim's default (Mixed spraying)
    *) echo "s1_proto: unknown protocol $1" >&2; return 2 ;;
    esac
}

s1_window() { # WK: sets S1_WARM_US S1_STOP_US S1_END_US unless given
    case $1 in
    wka) : "${S1_WARM_US:=200}" "${S1_STOP_US:=1200}" "${S1_END_US:=2200}" ;;  # 1 ms: 7 M msg/s per host at 50%
    *) : "${S1_WARM_US:=1000}" "${S1_STOP_US:=4000}" "${S1_END_US:=7000}" ;;
    esac
}

s1_args() { # PROTO SCENARIO WK LOAD
    proto=$1 scen=$2 wk=$3 load=$4
    cdf=$(s1_cdf "$wk") || return 2
    pf=$(s1_proto "$proto" "$wk") || return 2
    (
        s1_window "$wk"
        topo=$TOPO_BALANCED extra="" gl=$load
        # dctcp40, swift40: seed 001's 40 persistent connections per host
        # pair (Table 2; docs/workloads.md "Poisson workloads", conns); dctcp and swift:
        # a new connection per message
        case $proto in *40) extra=",conns=40" ;; esac
        case $scen in
        balanced) ;;
        core)
            # per-host payload rate = load x 100 G / (2 x 128/144) (sird.md Sec. 2.4, A13)
            topo=$TOPO_CORE
            gl=$(awk -v l="$load" 'BEGIN { printf "%.6f", l * 144 / 256 }') ;;
        incast) extra="$extra,incast=0.07" ;; # 30 x 500 KB, 7% of the load (P Sec. 5.1; sird.md A14)
        *) echo "s1_args: unknown scenario $scen" >&2; exit 2 ;;
        esac
        # S1_SAMPLING=step: HomaSim's reading of the CDF files (docs/workloads.md "Poisson workloads")
        echo "-topo $topo $S1_NET -end $S1_END_US $pf --workload poisson:cdf=$cdf,load=$gl,n=144,bdp=100000,warmup_us=$S1_WARM_US,stop_us=$S1_STOP_US$extra${S1_SAMPLING:+,sampling=$S1_SAMPLING}"
    )
}

# One run: s1_run OUTDIR PROTO SCENARIO WK LOAD [extra flags...]
# writes OUTDIR/stdout: the command line first, then spraysim's stdout (which
# has every number the write-ups use; no --out, so no flows.csv of millions
# of rows).
s1_run() {
    dir=$1; shift
    p=$1 sc=$2 w=$3 l=$4; shift 4
    mkdir -p "$dir"
    a=$(s1_args "$p" "$sc" "$w" "$l") || return 2
    # shellcheck disable=SC2086
    { echo "# bin/spraysim $a $*"; ${SPRAYSIM:-bin/spraysim} $a "$@" 2>&1; } >"$dir/stdout.tmp"
    mv "$dir/stdout.tmp" "$dir/stdout"
}
