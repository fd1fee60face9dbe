# Shared by the side-by-side benchmarks: inputs, timing, the table, output checks.
# Sourced, not run. Every figure is wall time of a whole process (start-up, file I/O
# and DSP) on warm page cache; each case is run ROUNDS times and the best is kept,
# since the machine may be shared and a neighbour only ever makes a run slower.

set -euo pipefail

COMPARE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$COMPARE_DIR/../.." && pwd)
TRELLIS=${TRELLIS:-$REPO_DIR/.build/release/trellis}
ROUNDS=${ROUNDS:-5}
RATE=48000
SECONDS_LONG=${SECONDS_LONG:-60}
FRAMES=$((RATE * SECONDS_LONG))
# Rows of the summary: case, tool, best s, median s, worst s, start s, ns/frame whole, ns/frame steady.
RESULTS=${RESULTS:-}

need() {
    for tool in "$@"; do
        command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install $tool)" >&2; exit 1; }
    done
}

ensure_trellis() {
    # Always asked: a binary left from older sources would be measured silently.
    echo "building trellis (release, if anything changed)..." >&2
    (cd "$REPO_DIR" && swift build -c release --static-swift-stdlib --product trellis >&2)
}

# A temporary directory with the inputs, made once per run-all (WORK is exported).
setup_inputs() {
    need sox
    if [[ -z ${WORK:-} ]]; then
        WORK=$(mktemp -d /tmp/trellis-compare.XXXXXX)
        export WORK
        trap 'rm -rf "$WORK"' EXIT
    fi
    cd "$WORK"
    [[ -f stereo.wav ]] && return
    # 8 mono files of SECONDS_LONG (60) s float pink noise at -12 dBFS, each from its own seed, and a
    # stereo file of two of them at -6 dBFS (sox's synth repeats one noise on every channel).
    for i in 1 2 3 4 5 6 7 8; do
        sox -q -n -r $RATE -c 1 -b 32 -e floating-point mono$i.wav synth $SECONDS_LONG pinknoise vol 0.25
    done
    sox -q -M -v 2 mono1.wav -v 2 mono2.wav -b 32 -e floating-point stereo.wav
    [[ $(peak_difference mono1.wav mono2.wav) != -inf ]] || { echo "sox made the same noise twice" >&2; exit 1; }
    # Short files for start-up time: the same command with almost nothing to process.
    sox -q stereo.wav short.wav trim 0 0.01
    for i in 1 2 3 4 5 6 7 8; do sox -q mono$i.wav short-mono$i.wav trim 0 0.01; done
}

# time_once COMMAND : runs the command string once; prints "wall cpu" in seconds (cpu is
# user + system time, children included).
time_once() {
    local line real user sys TIMEFORMAT='%3R %3U %3S'
    line=$( { time eval "$1" >/dev/null 2>"$WORK/last.err"; } 2>&1 ) ||
        { echo "FAILED: $1" >&2; cat "$WORK/last.err" >&2; return 1; }
    read -r real user sys <<<"$line"
    awk -v r="$real" -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f %.3f\n", r, u + s }'
}

# bench CASE TOOL ROUNDS LONG SHORT : queues one tool of a case; run_case runs them.
# LONG is the command on 60 s of audio, SHORT the same on 10 ms (its start-up).
# Commands are strings (run with eval): pipelines carry `!`.
Q_TOOLS=() Q_ROUNDS=() Q_LONG=() Q_SHORT=()
bench() {
    Q_TOOLS+=("$2"); Q_ROUNDS+=("$3"); Q_LONG+=("$4"); Q_SHORT+=("$5")
}

# run_case CASE : runs the queued tools round by round, interleaved (each round runs
# every tool once, long then short), so a neighbour's burst of work falls on all tools
# alike. Records per tool: best, median and worst wall time of LONG; best wall of SHORT
# (the start-up); whole-process ns/frame (best wall / frames); steady-state ns/frame,
# (best LONG - best SHORT) / frames, or for a tool in CPU_STEADY (ecasound: its wall
# clock moves in steps of its 0.5 s polling, and the work hides under its start-up
# wait) the same difference in CPU time; and the CPU ns/frame of LONG.
run_case() {
    local case=$1 count=${#Q_TOOLS[@]} most=0 round i
    local -a walls shorts cpus short_cpus
    for ((i = 0; i < count; i++)); do
        ((Q_ROUNDS[i] > most)) && most=${Q_ROUNDS[i]}
        walls[i]="" shorts[i]="" cpus[i]="" short_cpus[i]=""
    done
    for ((round = 0; round < most; round++)); do
        for ((i = 0; i < count; i++)); do
            ((round < Q_ROUNDS[i])) || continue
            local long_t short_t
            long_t=$(time_once "${Q_LONG[i]}") || return 1
            short_t=$(time_once "${Q_SHORT[i]}") || return 1
            walls[i]+=" ${long_t% *}"; cpus[i]+=" ${long_t#* }"
            shorts[i]+=" ${short_t% *}"; short_cpus[i]+=" ${short_t#* }"
        done
    done
    for ((i = 0; i < count; i++)); do
        local tool=${Q_TOOLS[i]} by=wall row
        [[ " ${CPU_STEADY:-ecasound} " == *" $tool "* ]] && by=cpu
        row=$(awk -v c="$case" -v t="$tool" -v by="$by" -v f="$FRAMES" \
                  -v w="${walls[i]}" -v s="${shorts[i]}" -v cp="${cpus[i]}" -v scp="${short_cpus[i]}" '
            function least(list,   n, a, k, m) { n = split(list, a, " "); m = a[1]; for (k = 2; k <= n; k++) if (a[k] + 0 < m + 0) m = a[k]; return m }
            BEGIN {
                n = split(w, a, " ")
                for (x = 1; x <= n; x++) for (y = x + 1; y <= n; y++) if (a[y] + 0 < a[x] + 0) { tmp = a[x]; a[x] = a[y]; a[y] = tmp }
                best = a[1]; median = a[int((n + 1) / 2)]; worst = a[n]
                start = least(s); cpu = least(cp); start_cpu = least(scp)
                steady = (by == "cpu" ? cpu - start_cpu : best - start) * 1e9 / f; if (steady < 0) steady = 0
                printf "%s\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.1f\t%.1f%s\t%.1f\n", c, t, best, median, worst, start, best * 1e9 / f, steady, (by == "cpu" ? "*" : ""), cpu * 1e9 / f
            }')
        echo "$row" >>"$RESULTS_FILE"
        echo "$row" | awk -F'\t' '{ printf "  %-8s %-16s best %6.3f s (median %.3f, worst %.3f)  start %.3f s  %6.1f ns/frame whole  %6s steady  %6.1f cpu\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }' >&2
    done
    Q_TOOLS=() Q_ROUNDS=() Q_LONG=() Q_SHORT=()
}

# peak_difference A B : the largest |a - b| over both files, as sox measures it, in dBFS.
peak_difference() {
    sox -q -m -v 1 "$1" -v -1 "$2" -n stats 2>&1 | awk '/^Pk lev dB/ { print $4 }'
}

# check NAME A B LIMIT_DB : records whether the two outputs agree to within LIMIT_DB dBFS.
check() {
    local name=$1 a=$2 b=$3 limit=$4 diff verdict
    diff=$(peak_difference "$a" "$b")
    verdict=$(awk -v d="$diff" -v l="$limit" 'BEGIN { print (d == "-inf" || d + 0 <= l + 0) ? "agree" : "DIFFER" }')
    printf "%s\t%s\t%s\t%s\n" "$name" "$diff" "$limit" "$verdict" >>"$CHECKS_FILE"
    printf '  check %-40s peak difference %s dBFS (limit %s): %s\n' "$name" "$diff" "$limit" "$verdict" >&2
}

start_results() {
    RESULTS_FILE=${RESULTS_FILE:-$WORK/results.tsv}
    CHECKS_FILE=${CHECKS_FILE:-$WORK/checks.tsv}
    export RESULTS_FILE CHECKS_FILE
    touch "$RESULTS_FILE" "$CHECKS_FILE"
}

# The table: per case, each tool's figures and its ratio to trellis (tool / trellis, so
# above 1 means Trellis is faster). A steady figure marked * is from CPU time.
print_table() {
    awk -F'\t' '
        { rows[NR] = $0; if ($2 == "trellis") { tw[$1] = $7; ts[$1] = $8 + 0 } }
        END {
            printf "%-8s %-16s %7s %7s %7s %8s %8s %8s %7s %7s\n", "case", "tool", "best s", "spread", "start s", "ns whole", "ns steady", "ns cpu", "x whole", "x steady"
            for (i = 1; i <= NR; i++) {
                split(rows[i], f, "\t")
                rw = (f[1] in tw && tw[f[1]] > 0) ? sprintf("%.2f", f[7] / tw[f[1]]) : "-"
                rs = (f[1] in ts && ts[f[1]] > 0) ? sprintf("%.2f", (f[8] + 0) / ts[f[1]]) : "-"
                printf "%-8s %-16s %7.3f %7.3f %7.3f %8.1f %9s %8.1f %7s %7s\n", f[1], f[2], f[3], f[5] - f[3], f[6], f[7], f[8], f[9], rw, rs
            }
        }' "$RESULTS_FILE"
    if [[ -s $CHECKS_FILE ]]; then
        echo
        awk -F'\t' '{ printf "check %-42s %9s dBFS (limit %s) %s\n", $1, $2, $3, $4 }' "$CHECKS_FILE"
    fi
}

# The hand-written C reference, compiled once into WORK; prints its path.
build_c_reference() {
    need cc pkg-config
    local binary=$WORK/reference
    if [[ ! -x $binary ]]; then
        cc -O2 -o "$binary" "$COMPARE_DIR/reference.c" $(pkg-config --cflags --libs sndfile) -lm
    fi
    echo "$binary"
}

# mix_gains I : "volume pan left right" of mono input I (1...8) in the mixing cases,
# the equal-power law of Trellis' mixer (and reference.c).
mix_gains() {
    awk -v i="$1" 'BEGIN {
        volume = 1 - 0.05 * (i - 1); pan = -1 + 2 * (i - 1) / 7; angle = (pan + 1) * atan2(0, -1) / 4
        printf "%.4f %.6f %.9f %.9f\n", volume, pan, cos(angle) * volume, sin(angle) * volume }'
}

# write_mix_session PATH BLOCK : a session mixing 8 mono inputs (JACK ports in1...in8,
# fed from files by `trellis render --input`) to stereo with mix_gains' gains and pans.
write_mix_session() {
    {
        echo "version: 1"
        echo "defaults: { sample-rate: $RATE, block-size: $2 }"
        echo "jack:"
        echo "  inputs: [in1, in2, in3, in4, in5, in6, in7, in8]"
        echo "  outputs: [left, right]"
        echo "nodes:"
        echo "  in: { unit: input, outputs: 8, channels: 1 }"
        echo "  mix:"
        echo "    unit: mixer"
        echo "    inputs: 8"
        echo "    input-channels: 1"
        echo "    parameters:"
        echo "      metering: 0"
        for i in 1 2 3 4 5 6 7 8; do
            read -r volume pan _ _ <<<"$(mix_gains "$i")"
            echo "      in$((i - 1)).volume: $volume"
            echo "      in$((i - 1)).pan: $pan"
        done
        echo "  out: output"
        echo "connections:"
        for i in 0 1 2 3 4 5 6 7; do echo "  - in.$i -> mix.$i"; done
        echo "  - mix -> out"
    } >"$1"
}
