#!/usr/bin/env bash
# bpfspec serve on bad input.  Truth, each from the interface serve
# promises (docs/serve.md):
#   - a selector that matches nothing: serve keeps running (three
#     intervals on), /metrics answers 200 with bpfspec_targets{target="none"}
#     0, and stderr has a line naming the target;
#   - a spec that cannot be read (a path that does not exist, a path that is
#     a directory: chmod 000 stops no one as root): exit status 3 (a bad
#     spec, as for bpfspec run) at start
#     (within 10 s, before any tracing), an error naming the path;
#   - a port in use (a python3 http.server holding 127.0.0.1:PORT): exit
#     status 2, an error naming 127.0.0.1:PORT;
#   - bad HTTP, against the first serve: POST /metrics 405 (Allow: GET,
#     HEAD), GET /nope 404, a GET with a body 400, HEAD /metrics 200 with no
#     body, a line that is not HTTP sent through bash's /dev/tcp answered
#     400 (or 505, for want of an HTTP version) or closed or held open
#     (libmicrohttpd holds a request it cannot
#     parse until its idle timeout, tests/unit/test_serve_http.c), and a
#     request target that is not a path (curl --request-target) 400 or
#     404; after each, and while the junk connection is still open,
#     GET /metrics answers 200.
# The selector's regex holds a bracket (no-such-proc[e]ss): its own text
# does not match it, so serve's command line is not a match either.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/prom.sh"
need_root

# code ARG... — curl's HTTP status for a request to serve (000: no answer).
# The body is in $TMP/body, the headers in $TMP/headers.
code() {
	rm -f "$TMP/body" "$TMP/headers"
	curl -s -o "$TMP/body" -D "$TMP/headers" -w '%{http_code}' --max-time 10 "$@" || true
}
# still_serving AFTER — GET /metrics answers 200.
still_serving() {
	local c
	c=$(code "$SERVE_URL/metrics")
	[ "$c" = 200 ] || fail "GET /metrics answered $c after $1: serve stopped serving"
}

# --- A selector that matches nothing.
start_serve libuv-phases --target "none=cmdline=no-such-proc[e]ss-$$" --listen 127.0.0.1:0 --interval 1s
sleep 3.5
running "$SERVE_PID" || { sed 's/^/    serve: /' "$TMP/serve.err" >&2; fail "serve exited on a selector that matches nothing"; }
scrape "$TMP/m.txt"
v=$(awk '/^bpfspec_targets\{/ && /target="none"/ { print $NF }' "$TMP/m.txt")
echo "measured: bpfspec_targets{target=\"none\"} after 3 intervals  ${v:-absent} (truth 0), serve running"
[ "$v" = 0 ] || fail "bpfspec_targets{target=\"none\"} is ${v:-absent}, not 0"
said=$(grep -v '^bpfspec serve: \(listening on\|ready\)' "$TMP/serve.err" | grep -w none | head -1 || true)
[ -n "$said" ] || { sed 's/^/    serve: /' "$TMP/serve.err" >&2; fail "serve's stderr has no line naming the target 'none'"; }
echo "measured: serve said                  $said"

# --- Bad HTTP requests against it.
c=$(code -X POST --data-binary x "$SERVE_URL/metrics")
allow=$(tr -d '\r' <"$TMP/headers" | sed -n 's/^[Aa]llow: //p')
echo "measured: POST /metrics               $c, Allow: $allow (truth 405, GET, HEAD)"
[ "$c" = 405 ] || fail "POST /metrics answered $c, not 405"
[ "$allow" = "GET, HEAD" ] || fail "POST /metrics: Allow is '$allow', not 'GET, HEAD'"
still_serving "POST /metrics"
c=$(code "$SERVE_URL/nope")
echo "measured: GET /nope                   $c (truth 404)"
[ "$c" = 404 ] || fail "GET /nope answered $c, not 404"
still_serving "GET /nope"
c=$(code -X GET --data-binary hello "$SERVE_URL/metrics")
echo "measured: GET /metrics with a body    $c (truth 400)"
[ "$c" = 400 ] || fail "GET /metrics with a body answered $c, not 400"
still_serving "a GET with a body"
# curl -I writes the headers where the body would go: its byte count of
# the body is the figure.
read -r c len <<<"$(curl -s -I -o /dev/null -w '%{http_code} %{size_download}' --max-time 10 "$SERVE_URL/metrics" || true)"
echo "measured: HEAD /metrics               $c, body $len bytes (truth 200, 0)"
[ "$c" = 200 ] && [ "$len" -eq 0 ] || fail "HEAD /metrics answered $c with $len bytes of body"
still_serving "HEAD /metrics"
c=$(code --request-target 'garbage' "$SERVE_URL/metrics")
echo "measured: GET with target 'garbage'   $c (truth 400 or 404)"
[ "$c" = 400 ] || [ "$c" = 404 ] || fail "a request target that is not a path was answered $c"
still_serving "a request target that is not a path"

# A line that is not HTTP, on a connection kept open meanwhile.
exec 3<>"/dev/tcp/127.0.0.1/$SERVE_PORT" || fail "cannot connect to 127.0.0.1:$SERVE_PORT"
printf 'THIS IS NOT HTTP\r\n\r\n' >&3
answer=
if IFS= read -r -t 3 answer <&3; then
	answer=${answer%$'\r'}
	case $answer in
	"HTTP/1."[01]" 400"*|"HTTP/1."[01]" 505"*) outcome="answered: $answer" ;;
	*) fail "a line that is not HTTP was answered '$answer', not 400 (or 505: no HTTP version)" ;;
	esac
elif [ $? -gt 128 ]; then
	outcome="held open (no answer in 3 s)"
else
	outcome="closed with no answer"
fi
echo "measured: a line that is not HTTP     $outcome"
still_serving "a line that is not HTTP (its connection still open)"
exec 3<&-
still_serving "the junk connection's close"
running "$SERVE_PID" || fail "serve exited after the bad requests"

# --- A port in use: this serve's own, and one a python3 http.server holds.
busy=$(free_port)
python3 -m http.server --bind 127.0.0.1 "$busy" >"$TMP/http.log" 2>&1 &
cleanup_pid "$!"
for ((i = 0; i < 100; i++)); do
	[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$busy/")" = 200 ] && break
	sleep 0.1
done
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$busy/")" = 200 ] ||
	fail "python3 -m http.server did not listen on 127.0.0.1:$busy"

# refused WHAT STATUS NAMED ARG... — serve ARG... must exit with STATUS
# within 10 s, its stderr naming NAMED.
refused() {
	local what=$1 status=$2 named=$3 pid rc i
	shift 3
	"$BPFSPEC" serve "$@" >"$TMP/refused.out" 2>"$TMP/refused.err" &
	pid=$!
	cleanup_pid "$pid"
	for ((i = 0; i < 100; i++)); do
		running "$pid" || break
		sleep 0.1
	done
	running "$pid" && fail "serve was still running 10 s after $what"
	rc=0
	wait "$pid" || rc=$?
	echo "measured: $what: exit $rc after $(awk -v i="$i" 'BEGIN { print i / 10 }') s: $(head -1 "$TMP/refused.err")"
	[ "$rc" = "$status" ] ||
		{ sed 's/^/    serve: /' "$TMP/refused.err" >&2; fail "$what: exit status $rc, not $status"; }
	grep -qF -- "$named" "$TMP/refused.err" ||
		{ sed 's/^/    serve: /' "$TMP/refused.err" >&2; fail "$what: the error does not name $named"; }
}
refused "port $busy held by python3" 2 "127.0.0.1:$busy" \
	libuv-phases --target "none=cmdline=no-such-proc[e]ss-$$" --listen "127.0.0.1:$busy" --interval 1s
refused "port $SERVE_PORT held by the first serve" 2 "127.0.0.1:$SERVE_PORT" \
	libuv-phases --target "none=cmdline=no-such-proc[e]ss-$$" --listen "127.0.0.1:$SERVE_PORT" --interval 1s

# --- Specs that cannot be read.
refused "a spec that does not exist" 3 "$TMP/no-such-spec.yaml" \
	"$TMP/no-such-spec.yaml" --target "none=cmdline=no-such-proc[e]ss-$$" --listen 127.0.0.1:0
mkdir "$TMP/spec-dir.yaml"
refused "a spec that is a directory" 3 "$TMP/spec-dir.yaml" \
	"$TMP/spec-dir.yaml" --target "none=cmdline=no-such-proc[e]ss-$$" --listen 127.0.0.1:0
# The second spec of two, a good one first.
refused "the second spec missing" 3 "$TMP/no-such-spec.yaml" \
	libuv-phases "$TMP/no-such-spec.yaml" --target "none=cmdline=no-such-proc[e]ss-$$" --listen 127.0.0.1:0

# The first serve is still there, still serving.
still_serving "the refused serves"
stop_serve
