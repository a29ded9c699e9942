#!/usr/bin/env bash
# bpfspec serve's Kubernetes labels, from a real cgroup: the test lays out
# kubelet's systemd cgroup tree (gen/target/discover_labels.c)
#   kubepods.slice/kubepods-burstable.slice/
#     kubepods-burstable-pod<UID, '_' for '-'>.slice/cri-containerd-<ID>.scope
# with a random pod UID and a random 64-hex container ID, moves a node
# workload (scripts/workloads/phases.js) into the leaf, and serves
# libuv-phases with --target k=cgroup=*kubepods*.  Truth: every series of
# the store for target k (latency histograms, window and lost-event
# counters) carries pod_uid="UID" (with dashes) and container_id="ID",
# read with curl from /metrics (no Prometheus needed); a second workload
# outside the pod, served beside it (target plain), carries neither; serve's
# own families (bpfspec_up, bpfspec_targets, ...) are left aside.
# Then serve in a cgroup namespace of its own, as in a container (unshare
# --cgroup from a cgroup the test makes beside kubepods.slice), where
# /proc/PID/cgroup of the pod's process reads "/../kubepods.slice/...":
# with CAP_SYS_ADMIN serve enters the host's namespace and the labels are
# the same; without it (setpriv drops it) serve says so on stderr and
# exports the series without pod labels.
# The cgroup v2 hierarchy is where /proc/self/mounts has it: /sys/fs/cgroup
# on a unified host, /sys/fs/cgroup/unified on a hybrid one (the "0::"
# line of /proc/PID/cgroup, which serve reads, is relative to it either
# way).  No controller is needed: the test only makes directories and
# writes cgroup.procs, which v2 allows in any cgroup with no controller
# enabled below it.  The directories it made are removed at the end, the
# leaf first, after its processes are gone, also when the test fails.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/prom.sh"
need_root

cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$cgroot" ] || fail "no cgroup v2 hierarchy is mounted (/proc/self/mounts has no cgroup2)"
echo "measured: cgroup v2 mounted at        $cgroot ($([ "$cgroot" = /sys/fs/cgroup ] && echo unified || echo hybrid) hierarchy)"

uid=$(cat /proc/sys/kernel/random/uuid)
id=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
[[ $uid =~ ^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$ ]] || fail "pod uid $uid is not 8-4-4-4-12 lower-case hex"
[[ $id =~ ^[0-9a-f]{64}$ ]] || fail "container id $id is not 64 lower-case hex"
rel=kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${uid//-/_}.slice/cri-containerd-$id.scope

# The directories made here, outermost first (kubepods.slice and the QoS
# slice may exist already, on a Kubernetes node: those are left alone).
made=()
cg_cleanup() {
	local i d p
	[ -n "${app:-}" ] && { kill "$app" 2>/dev/null || true; wait "$app" 2>/dev/null || true; }
	for ((i = ${#made[@]} - 1; i >= 0; i--)); do
		d=$cgroot/${made[i]}
		[ -d "$d" ] || continue
		# Anything still inside goes back to the root cgroup.
		for p in $(cat "$d/cgroup.procs" 2>/dev/null); do
			echo "$p" >"$cgroot/cgroup.procs" 2>/dev/null || true
		done
		rmdir "$d" 2>/dev/null || echo "test_serve_cgroup: could not remove $d" >&2
	done
}
trap 'cg_cleanup; _cleanup' EXIT

path=
for comp in ${rel//\// }; do
	path=${path:+$path/}$comp
	[ -d "$cgroot/$path" ] && continue
	mkdir "$cgroot/$path" || fail "cannot make the cgroup $cgroot/$path"
	made+=("$path")
done

node "$TOP/scripts/workloads/phases.js" --timer-ms 20 bpfspec-test-$$-pod &
app=$!
cleanup_pid "$app"
echo "$app" >"$cgroot/$rel/cgroup.procs" || fail "cannot move node ($app) into $cgroot/$rel"
seen=$(sed -n 's/^0:://p' "/proc/$app/cgroup")
[ "$seen" = "/$rel" ] || fail "node's cgroup is $seen, not /$rel"
echo "measured: node $app in cgroup         /$rel"
node "$TOP/scripts/workloads/phases.js" --timer-ms 20 bpfspec-test-$$-plain &
plain=$!
cleanup_pid "$plain"

start_serve libuv-phases --target 'k=cgroup=*kubepods*' --target "plain=cmdline=bpfspec-test-$$-[p]lain" \
	--listen 127.0.0.1:0 --interval 2s

# Until both targets have delivered a timers phase (an interval after
# each bpftrace has attached).
m=$TMP/metrics.txt
t0=$EPOCHREALTIME
for ((i = 0; i < 120; i++)); do
	scrape "$m"
	grep -q '^bpfspec_latency_seconds_count{[^}]*probe="timers"[^}]*target="k"' "$m" &&
		grep -q '^bpfspec_latency_seconds_count{[^}]*probe="timers"[^}]*target="plain"' "$m" && break
	sleep 0.5
done
grep -q '^bpfspec_latency_seconds_count{[^}]*target="k"' "$m" ||
	{ sed 's/^/    /' "$m" >&2; fail "no latency series for target k within 60 s"; }
grep -q '^bpfspec_latency_seconds_count{[^}]*target="plain"' "$m" ||
	{ sed 's/^/    /' "$m" >&2; fail "no latency series for target plain within 60 s"; }
echo "measured: series of both targets after $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
n=$(awk '/^bpfspec_targets\{/ && /target="k"/ { print $NF }' "$m")
echo "measured: bpfspec_targets{target=\"k\"}  $n (truth 1: the one process in a kubepods cgroup)"
[ "$n" = 1 ] || fail "bpfspec_targets{target=\"k\"} is ${n:-absent}, not 1"

# The store's series (not serve's own families) of each target.
own='^(bpfspec_up|bpfspec_targets|bpfspec_build_info|bpfspec_probes_attached|bpfspec_scrape_duration_seconds|bpfspec_restarts_total)[{ ]'
grep -v '^#' "$m" | grep -Ev "$own" | grep 'target="k"' >"$TMP/k.txt" || true
grep -v '^#' "$m" | grep -Ev "$own" | grep 'target="plain"' >"$TMP/plain.txt" || true
nk=$(grep -c . "$TMP/k.txt" || true)
np=$(grep -c . "$TMP/plain.txt" || true)
bad=$(grep -Fv "pod_uid=\"$uid\"" "$TMP/k.txt" | head -3 || true)
[ -z "$bad" ] || fail "series of target k without pod_uid=\"$uid\": $bad"
bad=$(grep -Fv "container_id=\"$id\"" "$TMP/k.txt" | head -3 || true)
[ -z "$bad" ] || fail "series of target k without container_id=\"$id\": $bad"
echo "measured: series of target k          $nk, all with pod_uid=\"$uid\" and container_id=\"${id:0:12}...\""
grep -q '^bpfspec_latency_seconds_bucket{' "$TMP/k.txt" || fail "target k has no latency histogram"
count=$(awk '/^bpfspec_latency_seconds_count\{/ && /probe="timers"/ && /thread_role="main"/ { print $NF }' "$TMP/k.txt")
echo "measured: target k main timers count  ${count:-absent}"
awk -v c="${count:-0}" 'BEGIN { exit !(c > 0) }' || fail "target k's main-thread timers count is ${count:-absent}"
bad=$(grep -E 'pod_uid=|container_id=' "$TMP/plain.txt" | head -3 || true)
[ -z "$bad" ] || fail "series of target plain (outside any pod) with pod labels: $bad"
echo "measured: series of target plain      $np, none with pod_uid or container_id"
[ "$np" -gt 0 ] || fail "target plain has no series"

stop_serve

# --- serve in a cgroup namespace of its own.
nsdir=bpfspec-test-serve-ns-$$
mkdir "$cgroot/$nsdir" || fail "cannot make the cgroup $cgroot/$nsdir"
made+=("$nsdir")
real=$BPFSPEC
cat >"$TMP/ns-serve.sh" <<SCRIPT
#!/bin/bash
# serve in a new cgroup namespace rooted at $nsdir (then with the
# capabilities NS_CAPS of setpriv, when set)
echo \$\$ >"$cgroot/$nsdir/cgroup.procs" || exit 99
exec unshare --cgroup \${NS_CAPS:+setpriv \$NS_CAPS} "$real" "\$@"
SCRIPT
chmod 700 "$TMP/ns-serve.sh"
BPFSPEC=$TMP/ns-serve.sh
# pod_labels_after WHAT — scrapes until target k has a timers series (60 s)
# and prints how many of its store series carry pod_uid="UID".
pod_labels_after() {
	for ((i = 0; i < 120; i++)); do
		scrape "$m"
		grep -q '^bpfspec_latency_seconds_count{[^}]*probe="timers"[^}]*target="k"' "$m" && break
		sleep 0.5
	done
	grep -q '^bpfspec_latency_seconds_count{[^}]*target="k"' "$m" ||
		{ sed 's/^/    serve: /' "$TMP/serve.err" >&2; fail "$1: no latency series for target k within 60 s"; }
	grep -v '^#' "$m" | grep -Ev "$own" | grep 'target="k"' | grep -cF "pod_uid=\"$uid\"" || true
}
# What a process started the same way sees: its own cgroup as "/", the
# pod's process's from "/..".
seen=$(bash -c "echo \$\$ >'$cgroot/$nsdir/cgroup.procs' && exec unshare --cgroup cat /proc/self/cgroup /proc/$app/cgroup" |
	sed -n 's/^0:://p' | tr '\n' ' ')
echo "measured: in such a namespace, own and pod's cgroup  ${seen:0:60}..."
[[ $seen == "/ /../kubepods.slice/"* ]] || fail "a namespace made as serve's sees $seen, not / and /../kubepods.slice/..."
start_serve libuv-phases --target 'k=cgroup=*kubepods*' --listen 127.0.0.1:0 --interval 2s
grep -q "entered the host's cgroup namespace" "$TMP/serve.err" ||
	{ sed 's/^/    serve: /' "$TMP/serve.err" >&2; fail "serve did not say it entered the host's cgroup namespace"; }
n=$(pod_labels_after "in a namespace of its own")
echo "measured: own namespace: series of k with pod_uid  $n"
[ "$n" -gt 0 ] || fail "in a cgroup namespace of its own, no series of target k has pod_uid"
stop_serve

NS_CAPS="--bounding-set=-sys_admin --inh-caps=-sys_admin"
export NS_CAPS
start_serve libuv-phases --target 'k=cgroup=*kubepods*' --listen 127.0.0.1:0 --interval 2s
warned=$(grep -c "cannot enter the host's" "$TMP/serve.err" || true)
echo "measured: without CAP_SYS_ADMIN: warned  $warned ($(grep -o "cannot enter the host's ([^)]*)" "$TMP/serve.err" | head -1))"
[ "$warned" = 1 ] || { sed 's/^/    serve: /' "$TMP/serve.err" >&2; fail "without CAP_SYS_ADMIN serve did not say that it cannot enter the host's cgroup namespace"; }
n=$(pod_labels_after "without CAP_SYS_ADMIN")
echo "measured: without CAP_SYS_ADMIN: series of k with pod_uid  $n (truth 0: the path reads /../kubepods.slice/...)"
[ "$n" = 0 ] || fail "without CAP_SYS_ADMIN, $n series of target k have pod_uid"
stop_serve
unset NS_CAPS
BPFSPEC=$real
