# serve.sh — section 7 of scripts/bench.sh (sourced; uses its row, calc,
# median, goal_le, say, pids, forget, tmp, bpfspec): what `bpfspec serve`
# costs with 20 traced node processes at a 10 s interval.
#   CPU     serve's own user+system time over SERVE_SECONDS once every
#           process is traced, as a share of one CPU (goal < 2%); then
#           the same for its `bpfspec run` child and for bpftrace, for
#           the record (they are the tracing, not serve's overhead);
#   RSS     serve's peak (VmHWM, goal < 50 MB);
#   scrape  GET /metrics with curl, median and worst of SERVE_SCRAPES
#           (goal < 50 ms);
#   tree    serve with its children and their bpftrace: user+system time
#           over the same SERVE_SECONDS (goal < 3%) and the sum of their
#           RSS at its end (goal < 300 MB);
#   churn   SERVE_CHURNS times, one node process starts and one of the
#           first ones is killed, one interval apart: the time no process
#           was traced per churn, elapsed time minus the time measured
#           (bpfspec_window_seconds_total), both taken as a report comes
#           in (goal < 0.5 s: a restart is seconds; the holds between
#           intervals are in it, and the note gives them as measured over
#           two intervals without churn), and the restarts
#           (bpfspec_restarts_total).
# Then five executables (serve_exes_section): five copies of node at
# paths of their own, two processes each, one target, the same workload:
#   bpftrace  how many bpftrace serve runs (one per spec and target, for
#           every executable: serve_family.c);
#   up      serve's start to every bpfspec_up at 1;
#   tree    serve's whole tree CPU over SERVE_SECONDS (goal < 3%) and RSS
#           (goal < 300 MB);
#   new executable  a process of a sixth copy starts: the bpftrace starts
#           again on six files; the time none of the others was traced
#           (elapsed minus measured, as the churn row), and the restarts.
# SERVE_EXES_SPECS names the specs (default libuv-phases); SERVE_SECTIONS
# (default "procs exes") which of the two parts run.
# The node processes each run a 1 ms busy timer every 50 ms (about 2% of
# a CPU each), so that every loop phase fires.

SERVE_SECONDS=${SERVE_SECONDS:-60}
SERVE_SCRAPES=${SERVE_SCRAPES:-20}
SERVE_PROCS=${SERVE_PROCS:-20}
SERVE_CHURNS=${SERVE_CHURNS:-4}
SERVE_EXES_SPECS=${SERVE_EXES_SPECS:-libuv-phases}
SERVE_SECTIONS=${SERVE_SECTIONS:-procs exes}

# cpu_ticks PID — utime + stime of PID (clock ticks), empty when gone.
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null; }
# tree_of PID — PID and its descendants, two levels down (serve, its
# bpfspec run children, their bpftrace).
tree_of() {
	local c
	echo "$1"
	for c in $(pgrep -P "$1" || true); do
		echo "$c"
		pgrep -P "$c" || true
	done
}
# tree_ticks PID — cpu_ticks summed over tree_of PID.
tree_ticks() {
	local p t=0
	for p in $(tree_of "$1"); do t=$((t + $(cpu_ticks "$p" || echo 0))); done
	echo "$t"
}
# tree_rss PID — VmRSS summed over tree_of PID, in MB.
tree_rss() {
	local p
	for p in $(tree_of "$1"); do cat "/proc/$p/status" 2>/dev/null || true; done |
		awk '/^VmRSS:/ { kb += $2 } END { printf "%.1f", kb / 1024 }'
}
# metric PORT NAME — the value of serve's first sample of NAME.
metric() {
	curl -s "http://127.0.0.1:$1/metrics" | awk -v n="$2" 'index($1, n "{") == 1 { print $2; exit }'
}
# at_report PORT — waits (up to 30 s) for the next report to come in (a
# change of bpfspec_window_seconds_total), then prints the time and that
# total.
at_report() {
	local w0 w i
	w0=$(metric "$1" bpfspec_window_seconds_total)
	for ((i = 0; i < 1500; i++)); do
		w=$(metric "$1" bpfspec_window_seconds_total)
		[ "$w" != "$w0" ] && break
		sleep 0.02
	done
	echo "$EPOCHREALTIME $w"
}

# churn_rows PORT SERVE_PID — SERVE_CHURNS churns of the node processes
# (nodes[] and pids[] of serve_section), then their rows.
churn_rows() {
	local port=$1 serve_pid=$2 i n tb wb t0 w0 t1 w1 r0 r1 held untraced
	r0=$(metric "$port" bpfspec_restarts_total)
	# Without churn, over two intervals: the holds between intervals
	# (bpftrace printing and clearing the maps) are untraced too.
	read -r tb wb < <(at_report "$port")
	at_report "$port" >/dev/null
	read -r t0 w0 < <(at_report "$port")
	held=$(calc "(($t0 - $tb) - ($w0 - $wb)) / 2")
	for ((i = 0; i < SERVE_CHURNS; i++)); do
		node -e 'setInterval(() => { const e = Date.now() + 1; while (Date.now() < e); }, 50)' \
			"$marker" &
		pids+=($!)
		nodes+=($!)
		kill "${nodes[$i]}" 2>/dev/null || true
		wait "${nodes[$i]}" 2>/dev/null || true
		forget "${nodes[$i]}"
		sleep 10
	done
	sleep 10	# the last churn's scan and interval
	read -r t1 w1 < <(at_report "$port")
	r1=$(metric "$port" bpfspec_restarts_total)
	n=$SERVE_CHURNS
	untraced=$(calc "(($t1 - $t0) - ($w1 - $w0)) / $n")
	row serve "untraced time per churn" "$untraced" s - - "< 0.5 s" "$(goal_le "$untraced" 0.5)" \
		"$n churns (one node process in, one out), $(fix2 "$t1 - $t0") s elapsed, $(fix2 "$w1 - $w0") s measured, one interval each; without churn $(fix2 "$held") s an interval (the holds, and the polling's error); restarts ${r0:-0} -> ${r1:-0}"
}

serve_section() {
	local marker=bpfspec-bench-serve i serve_pid port up=0 t0 t1 c0 c1 k0 k1 b0 b1 kid bt p
	local nodes=()
	say "serve: $SERVE_PROCS node processes, interval 10 s, ${SERVE_SECONDS} s measured"
	for ((i = 0; i < SERVE_PROCS; i++)); do
		node -e 'setInterval(() => { const e = Date.now() + 1; while (Date.now() < e); }, 50)' \
			"$marker" &
		pids+=($!)
		nodes+=($!)
	done
	"$bpfspec" serve libuv-phases --target "bench=cmdline=${marker%e}[e]" --listen 127.0.0.1:0 \
		--interval 10s 2>"$tmp/serve.err" &
	serve_pid=$!
	pids+=("$serve_pid")
	port=
	for ((i = 0; i < 100; i++)); do
		sleep 0.1
		port=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$tmp/serve.err" | grep -o '[0-9]*$' || true)
		[ -n "$port" ] && break
	done
	# Up once the first interval of all 20 arrived (one child: one binary).
	for ((i = 0; i < 120; i++)); do
		up=$(curl -s "http://127.0.0.1:$port/metrics" | awk '$1 ~ /^bpfspec_up\{/ { print $2 }')
		[ "$up" = 1 ] && break
		sleep 1
	done
	if [ "$up" != 1 ]; then
		say "serve never came up: $(tail -3 "$tmp/serve.err")"
		row serve "serve CPU, $SERVE_PROCS node processes" - "% CPU" - - "< 2%" n/a "serve did not come up"
		kill "$serve_pid" "${nodes[@]}" 2>/dev/null || true
		return
	fi
	kid=$(pgrep -P "$serve_pid" -f 'bpfspec run' | head -1)
	bt=$(pgrep -P "$kid" bpftrace | head -1)
	local tree0 tree1
	t0=$EPOCHREALTIME c0=$(cpu_ticks "$serve_pid") k0=$(cpu_ticks "$kid") b0=$(cpu_ticks "$bt")
	tree0=$(tree_ticks "$serve_pid")
	sleep "$SERVE_SECONDS"
	t1=$EPOCHREALTIME c1=$(cpu_ticks "$serve_pid") k1=$(cpu_ticks "$kid") b1=$(cpu_ticks "$bt")
	tree1=$(tree_ticks "$serve_pid")
	local hz dt share kshare bshare tshare trss
	hz=$(getconf CLK_TCK)
	dt=$(calc "$t1 - $t0")
	share=$(calc "100 * ($c1 - $c0) / $hz / $dt")
	row serve "serve CPU, $SERVE_PROCS node processes" "$share" "% CPU" - - "< 2%" "$(goal_le "$share" 2)" \
		"user+system of serve over $(printf %.0f "$dt") s, interval 10 s"
	if [ -n "$k1" ] && [ -n "$k0" ]; then
		kshare=$(calc "100 * ($k1 - $k0) / $hz / $dt")
		row serve "its bpfspec run child" "$kshare" "% CPU" - - - - "reads bpftrace's output, writes JSON"
	fi
	if [ -n "$b1" ] && [ -n "$b0" ]; then
		bshare=$(calc "100 * ($b1 - $b0) / $hz / $dt")
		row serve "its bpftrace" "$bshare" "% CPU" - - - - "user space only: the probes' cost is the processes'"
	fi
	tshare=$(calc "100 * ($tree1 - $tree0) / $hz / $dt")
	row serve "serve's whole tree CPU" "$tshare" "% CPU" - - "< 3%" "$(goal_le "$tshare" 3)" \
		"serve, its bpfspec run children and their bpftrace: $(tree_of "$serve_pid" | wc -l) processes"
	trss=$(tree_rss "$serve_pid")
	row serve "serve's whole tree RSS" "$trss" MB - - "< 300 MB" "$(goal_le "$trss" 300)" \
		"VmRSS summed over the same processes"
	local hwm
	hwm=$(awk '/^VmHWM:/ { printf "%.1f", $2 / 1024 }' "/proc/$serve_pid/status")
	row serve "serve peak RSS" "$hwm" MB - - "< 50 MB" "$(goal_le "$hwm" 50)" "VmHWM"
	for ((i = 0; i < SERVE_SCRAPES; i++)); do
		curl -s -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$port/metrics"
	done >"$tmp/scrapes"
	local med worst series
	med=$(median <"$tmp/scrapes")
	worst=$(sort -g "$tmp/scrapes" | tail -1)
	series=$(curl -s "http://127.0.0.1:$port/metrics" | grep -vc '^#')
	row serve "scrape, GET /metrics" "$(calc "$med * 1000")" ms - - "< 50 ms" \
		"$(goal_le "$(calc "$med * 1000")" 50)" \
		"median of $SERVE_SCRAPES, worst $(calc "$worst * 1000") ms; $series lines"
	churn_rows "$port" "$serve_pid"
	kill "$serve_pid" 2>/dev/null
	wait "$serve_pid" 2>/dev/null || true
	forget "$serve_pid"
	for p in "${nodes[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
		forget "$p"
	done
}
# all_up PORT — every bpfspec_up sample of serve on PORT is 1.
all_up() {
	curl -s "http://127.0.0.1:$1/metrics" |
		awk '$1 ~ /^bpfspec_up\{/ { n++; if ($2 != 1) bad++ } END { exit !(n && !bad) }'
}
# bpftrace_count PID — the bpftrace among tree_of PID.
bpftrace_count() {
	local p n=0
	for p in $(tree_of "$1"); do [ "$(cat "/proc/$p/comm" 2>/dev/null)" = bpftrace ] && n=$((n + 1)); done
	echo "$n"
}

# serve_new_exe PORT SERVE_PID BIN MARKER — a process of a sixth copy of
# node starts (nodes[] of serve_exes_section): its row.  Its bpftrace
# starts beside the running one (docs/serve.md), which keeps tracing the
# other five: the row is the time until the new one has reported too,
# with the window seconds the running one added meanwhile.
serve_new_exe() {
	local port=$1 serve_pid=$2 bin=$3 marker=$4 t0 w0 t1 w1 r1 i n_bt
	read -r t0 w0 < <(at_report "$port")
	cp "$(command -v node)" "$bin/node6"
	"$bin/node6" -e 'setInterval(() => { const e = Date.now() + 1; while (Date.now() < e); }, 50)' \
		"$marker" &
	pids+=($!)
	nodes+=($!)
	sleep 2
	for ((i = 0; i < 120; i++)); do
		n_bt=$(bpftrace_count "$serve_pid")
		[ "$n_bt" -gt 1 ] && all_up "$port" && break
		sleep 0.5
	done
	t1=$EPOCHREALTIME
	w1=$(metric "$port" bpfspec_window_seconds_total)
	r1=$(metric "$port" bpfspec_restarts_total)
	row serve "new executable: until traced" "$(calc "$t1 - $t0")" s - - - - \
		"a process of a sixth copy: its own bpftrace starts beside the running one ($n_bt then); window seconds added meanwhile $(fix2 "$w1 - $w0") (the running one kept tracing); restarts ${r1:-0}"
}

serve_exes_section() {
	local marker=bpfspec-bench-exes bin=$tmp/exes i k p serve_pid port t0 tup c0 c1 tshare trss hz dt n_bt
	local nodes=() specs
	read -r -a specs <<<"$SERVE_EXES_SPECS"
	say "serve: five executables, two processes each, ${specs[*]}, interval 10 s, ${SERVE_SECONDS} s measured"
	mkdir -m 700 "$bin"
	for k in 1 2 3 4 5; do
		cp "$(command -v node)" "$bin/node$k"
		for i in 1 2; do
			"$bin/node$k" -e 'setInterval(() => { const e = Date.now() + 1; while (Date.now() < e); }, 50)' \
				"$marker" &
			pids+=($!)
			nodes+=($!)
		done
	done
	t0=$EPOCHREALTIME
	"$bpfspec" serve "${specs[@]}" --target "bench=cmdline=${marker%s}[s]" --listen 127.0.0.1:0 \
		--interval 10s 2>"$tmp/serve-exes.err" &
	serve_pid=$!
	pids+=("$serve_pid")
	port=
	for ((i = 0; i < 100; i++)); do
		sleep 0.1
		port=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$tmp/serve-exes.err" | grep -o '[0-9]*$' || true)
		[ -n "$port" ] && break
	done
	for ((i = 0; i < 240; i++)); do
		all_up "$port" && break
		sleep 0.5
	done
	tup=$(calc "$EPOCHREALTIME - $t0")
	if ! all_up "$port"; then
		say "serve never came up on five executables: $(tail -3 "$tmp/serve-exes.err")"
		row serve "five executables: up" - s - - - n/a "serve did not come up"
	else
		n_bt=$(bpftrace_count "$serve_pid")
		row serve "five executables: bpftrace processes" "$n_bt" - - - - - \
			"${#specs[@]} spec(s) (${specs[*]}), one target, 5 x 2 node processes"
		row serve "five executables: every target up" "$tup" s - - - - "serve's start to every bpfspec_up at 1"
		hz=$(getconf CLK_TCK)
		t0=$EPOCHREALTIME c0=$(tree_ticks "$serve_pid")
		sleep "$SERVE_SECONDS"
		dt=$(calc "$EPOCHREALTIME - $t0") c1=$(tree_ticks "$serve_pid")
		tshare=$(calc "100 * ($c1 - $c0) / $hz / $dt")
		trss=$(tree_rss "$serve_pid")
		row serve "five executables: whole tree CPU" "$tshare" "% CPU" - - "< 3%" "$(goal_le "$tshare" 3)" \
			"serve, its children and their bpftrace ($(tree_of "$serve_pid" | wc -l) processes) over $(printf %.0f "$dt") s"
		row serve "five executables: whole tree RSS" "$trss" MB - - "< 300 MB" "$(goal_le "$trss" 300)" \
			"VmRSS summed over the same processes"
		serve_new_exe "$port" "$serve_pid" "$bin" "$marker"
	fi
	kill "$serve_pid" 2>/dev/null
	wait "$serve_pid" 2>/dev/null || true
	forget "$serve_pid"
	for p in "${nodes[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
		forget "$p"
	done
}
case " $SERVE_SECTIONS " in *" procs "*) serve_section ;; esac
case " $SERVE_SECTIONS " in *" exes "*) serve_exes_section ;; esac
