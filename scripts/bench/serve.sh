# serve.sh — section 7 of scripts/bench.sh (sourced; uses its row, calc,
# median, goal_le, say, pids, forget, tmp, bpfspec): what `bpfspec serve`
# costs with 20 traced node processes at a 10 s interval.
#   CPU     serve's own user+system time over SERVE_SECONDS once every
#           process is traced, as a share of one CPU (goal < 2%); then
#           the same for its `bpfspec run` child and for bpftrace, for
#           the record (they are the tracing, not serve's overhead);
#   RSS     serve's peak (VmHWM, goal < 50 MB);
#   scrape  GET /metrics with curl, median and worst of SERVE_SCRAPES
#           (goal < 50 ms).
# The node processes each run a 1 ms busy timer every 50 ms (about 2% of
# a CPU each), so that every loop phase fires.

SERVE_SECONDS=${SERVE_SECONDS:-60}
SERVE_SCRAPES=${SERVE_SCRAPES:-20}
SERVE_PROCS=${SERVE_PROCS:-20}

# cpu_ticks PID — utime + stime of PID (clock ticks), empty when gone.
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null; }

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
	t0=$EPOCHREALTIME c0=$(cpu_ticks "$serve_pid") k0=$(cpu_ticks "$kid") b0=$(cpu_ticks "$bt")
	sleep "$SERVE_SECONDS"
	t1=$EPOCHREALTIME c1=$(cpu_ticks "$serve_pid") k1=$(cpu_ticks "$kid") b1=$(cpu_ticks "$bt")
	local hz dt share kshare bshare
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
	kill "$serve_pid" 2>/dev/null
	wait "$serve_pid" 2>/dev/null || true
	forget "$serve_pid"
	for p in "${nodes[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
		forget "$p"
	done
}
serve_section
