# prom.sh — a real Prometheus for the tests of `bpfspec serve`, and
# bpfspec serve itself started and read the same way in each of them.
# Sourced after lib.sh (it uses TMP, TOP, BPFSPEC, fail and cleanup_pid).
# Prometheus is Debian's package (/usr/bin/prometheus, 2.42 on Debian 12);
# its flags here exist in every 2.x and 3.x.  Values are read with jq, as
# lib.sh's jqr does.

# free_port — prints a TCP port of 127.0.0.1 that was free a moment ago
# (the kernel's choice for port 0).  Another program may take it before
# the caller binds it: whoever binds it retries on failure.
free_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# prom_start TARGET... — starts Prometheus on 127.0.0.1 on a free port,
# scraping each TARGET (HOST:PORT; "self" is its own address) every
# second as job "bpfspec", storage under $TMP/prom, killed when the test
# ends; waits (up to 30 s) until /-/ready answers 200.  Sets PROM_URL
# (http://127.0.0.1:PORT) and PROM_PID.  Retries with another port when
# the one chosen was taken meanwhile.
prom_start() {
	local dir=$TMP/prom try port t targets i
	command -v prometheus >/dev/null || fail "prometheus is not installed (Debian package prometheus): run scripts/setup.sh"
	mkdir -p "$dir"
	for try in 1 2 3; do
		port=$(free_port) || fail "no free port for Prometheus"
		targets=
		for t in "$@"; do
			[ "$t" = self ] && t=127.0.0.1:$port
			targets="$targets${targets:+, }'$t'"
		done
		# scrape_timeout may not exceed the interval; evaluation is for
		# rules, of which there are none.
		cat >"$dir/prometheus.yml" <<-EOF
		global:
		  scrape_interval: 1s
		  scrape_timeout: 1s
		  evaluation_interval: 1s
		scrape_configs:
		  - job_name: bpfspec
		    static_configs:
		      - targets: [$targets]
		EOF
		rm -rf "$dir/data"
		: >"$dir/log"
		prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
			--web.listen-address="127.0.0.1:$port" --log.level=warn >>"$dir/log" 2>&1 &
		PROM_PID=$!
		cleanup_pid "$PROM_PID"
		PROM_URL=http://127.0.0.1:$port
		for ((i = 0; i < 300; i++)); do
			kill -0 "$PROM_PID" 2>/dev/null || break
			if [ "$(curl -s -o /dev/null -w '%{http_code}' "$PROM_URL/-/ready")" = 200 ]; then
				echo "measured: prometheus ready            $(prometheus --version 2>&1 | awk 'NR == 1 { print $3 }') on $PROM_URL after $(awk -v i="$i" 'BEGIN { print i / 10 }') s, scraping $*"
				return 0
			fi
			sleep 0.1
		done
		kill "$PROM_PID" 2>/dev/null || true
		wait "$PROM_PID" 2>/dev/null || true
		grep -q 'address already in use' "$dir/log" || break
	done
	sed 's/^/    prometheus: /' "$dir/log" >&2
	fail "Prometheus did not become ready on $PROM_URL"
}

# prom_query EXPR [TIME] — evaluates the PromQL EXPR now (or at TIME, Unix
# seconds) through /api/v1/query and prints its value: a scalar's value;
# for an instant vector one line per series, sorted, "VALUE" when the
# series has no labels left (an aggregate), else "NAME=VALUE,... VALUE"
# with the labels but __name__ sorted by name.  Nothing for an empty
# vector.  Fails the test when the query is refused (bad syntax) or
# Prometheus does not answer.  Values are Prometheus' text: "NaN",
# "+Inf" and "-Inf" can occur.
prom_query() {
	local out vals
	out=$(curl -sS --max-time 10 --data-urlencode "query=$1" ${2:+--data-urlencode "time=$2"} \
		"$PROM_URL/api/v1/query") || fail "Prometheus at $PROM_URL did not answer the query $1"
	printf '%s\n' "$out" | jq -e '.status == "success"' >/dev/null 2>&1 ||
		fail "Prometheus refused the query $1: $(printf '%s' "$out" | jq -r '.error // .' 2>/dev/null || printf '%s' "$out")"
	vals=$(printf '%s\n' "$out" | jq -r '
		.data as $d
		| if $d.resultType == "scalar" then $d.result[1]
		  elif $d.resultType == "vector" then
			$d.result[]
			| (.metric | del(.__name__) | to_entries | sort_by(.key)
			   | map("\(.key)=\(.value)") | join(",")) as $l
			| if $l == "" then .value[1] else "\($l) \(.value[1])" end
		  else error("result type \($d.resultType) is not an instant value") end') ||
		fail "Prometheus answered the query $1 with no instant value"
	[ -z "$vals" ] || printf '%s\n' "$vals" | sort
}

# prom_value EXPR [TIME] — the one value of EXPR: a scalar, or a vector
# of exactly one series (its value only).  Fails otherwise, saying what
# came back.
prom_value() {
	local out n
	out=$(prom_query "$@")
	n=$(printf '%s' "$out" | grep -c . || true)
	[ "$n" -eq 1 ] || fail "the query $1 gave $n values, expected one: ${out:-nothing}"
	printf '%s\n' "${out##* }"
}

# prom_wait EXPR PREDICATE TIMEOUT — evaluates EXPR every half second
# until it gives at least one value and every value satisfies PREDICATE,
# an awk condition on v (e.g. 'v >= 1'; a value that is not a number,
# NaN or ±Inf, satisfies no predicate); fails after TIMEOUT seconds,
# printing the last answer.  Sets PROM_WAITED to the seconds it took.
prom_wait() {
	local expr=$1 pred=$2 limit=$3 t0 out
	t0=$EPOCHREALTIME
	while :; do
		out=$(prom_query "$expr")
		if [ -n "$out" ] && printf '%s\n' "$out" | awk '{
			v = $NF
			if (v !~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/) exit 1
			v += 0
			if (!('"$pred"')) exit 1 }'; then
			PROM_WAITED=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
			return 0
		fi
		if awk -v a="$t0" -v b="$EPOCHREALTIME" -v l="$limit" 'BEGIN { exit !(b - a > l) }'; then
			fail "after $limit s, $expr is not yet '$pred': ${out:-no series}"
		fi
		sleep 0.5
	done
}

# start_serve ARG... — starts `bpfspec serve ARG...` (stderr to
# $TMP/serve.err, killed when the test ends) and waits (up to 60 s) for
# its "bpfspec serve: ready" line.  Sets SERVE_PID, and SERVE_PORT and
# SERVE_URL (http://127.0.0.1:PORT) from its "listening on" line.
start_serve() {
	local i t0=$EPOCHREALTIME
	: >"$TMP/serve.err"
	"$BPFSPEC" serve "$@" 2>"$TMP/serve.err" &
	SERVE_PID=$!
	cleanup_pid "$SERVE_PID"
	for ((i = 0; i < 600; i++)); do
		grep -q '^bpfspec serve: ready' "$TMP/serve.err" && break
		kill -0 "$SERVE_PID" 2>/dev/null || break
		sleep 0.1
	done
	if ! grep -q '^bpfspec serve: ready' "$TMP/serve.err"; then
		sed 's/^/    serve: /' "$TMP/serve.err" >&2
		fail "bpfspec serve (pid $SERVE_PID) did not say it is ready within 60 s"
	fi
	SERVE_PORT=$(sed -n 's|^bpfspec serve: listening on http://127\.0\.0\.1:\([0-9][0-9]*\)/$|\1|p' \
		"$TMP/serve.err" | head -1)
	[ -n "$SERVE_PORT" ] || fail "bpfspec serve did not print 'bpfspec serve: listening on http://127.0.0.1:PORT/'"
	SERVE_URL=http://127.0.0.1:$SERVE_PORT
	echo "measured: serve ready after           $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s on $SERVE_URL"
}

# stop_serve [PID] — SIGTERM to serve (SERVE_PID, or PID: another serve
# the test started): it must exit within 20 s (each child ends its window
# and bpftrace detaches its probes, about 0.1 s each) and leave no process
# of its own behind (its bpfspec run children and their bpftrace, given
# 5 s more).  Prints its exit status.
stop_serve() {
	local pid=${1:-$SERVE_PID} kids rc i p left
	kids=$(serve_descendants "$pid")
	kill -TERM "$pid"
	for ((i = 0; i < 200; i++)); do
		running "$pid" || break
		sleep 0.1
	done
	running "$pid" && fail "bpfspec serve (pid $pid) did not exit within 20 s of SIGTERM"
	rc=0
	wait "$pid" || rc=$?
	echo "measured: serve exit status on SIGTERM $rc, within $(awk -v i="$i" 'BEGIN { print i / 10 }') s"
	for ((i = 0; i < 50; i++)); do
		left=
		for p in $kids; do
			running "$p" && left="$left $p"
		done
		[ -z "$left" ] && break
		sleep 0.1
	done
	for p in $left; do
		fail "process $p ($(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)) of serve's outlived it by 5 s"
	done
	echo "measured: serve's processes left       0 of $(echo $kids | wc -w)"
}

# running PID — PID exists and is not a zombie (one not yet reaped still
# answers kill -0).
running() {
	local st
	st=$(sed 's/.*) //; s/ .*//' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

# serve_descendants [PID] — the pids of serve's (SERVE_PID's, or PID's)
# children and theirs, one level deeper (bpfspec run children and their
# bpftrace).
serve_descendants() {
	local c
	for c in $(pgrep -P "${1:-$SERVE_PID}" || true); do
		echo "$c"
		pgrep -P "$c" || true
	done
}

# scrape FILE — GET /metrics from serve into FILE; fails unless 200.
scrape() {
	local code
	code=$(curl -sS --max-time 10 -o "$1" -w '%{http_code}' "$SERVE_URL/metrics") ||
		fail "GET $SERVE_URL/metrics failed"
	[ "$code" = 200 ] || fail "GET $SERVE_URL/metrics answered $code"
}
