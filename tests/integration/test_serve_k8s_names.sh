#!/usr/bin/env bash
# bpfspec serve's Kubernetes names from a real container runtime's state:
# podman (Debian's package, with runc) writes each container's OCI config
# in containers/storage's layout, the one CRI-O keeps under /run:
#   <root>/overlay-containers/<64 hex id>/userdata/config.json
# with the annotations given by --annotation.  The test runs two node
# workloads (scripts/workloads/phases.js) in containers made offline from
# a root filesystem it builds (the node binary and the libraries ldd
# lists), with the annotations kubelet's labels put there under CRI-O:
#   A  io.kubernetes.pod.namespace=shop, io.kubernetes.pod.name=<hostile:
#      escape sequences, quotes, a backslash, 330 bytes>,
#      io.kubernetes.container.name=node
#   B  other / batch-1 / worker
# Podman (without its transient store) keeps config.json in its graph
# root, where CRI-O writes it too (and in its run root): the test gives
# podman a private graph root at TMP/host/run/containers/storage, where a
# node's CRI-O run root would be, and serves with --host-run TMP/host/run.
# Podman names its cgroups libpod-<id>, not kubelet's; the test moves each
# container's process into the cgroup CRI-O's cgroupfs manager makes for
# a pod's container, /kubepods/besteffort/pod<UID>/crio-<id> (cgroup v2,
# as test_serve_cgroup.sh does), which is what serve reads the id from.
# A third process (sleep) sits in such a cgroup with an id no runtime
# knows: its names cannot be read.
# Truth: --target api=k8s-namespace=shop selects A alone and
# --target w=k8s-container='work*' B alone (bpfspec_targets 1 each); every
# series of the store for api carries k8s_namespace_name="shop",
# k8s_pod_name=<the text form of the first 253 bytes, escaped for
# Prometheus>, k8s_container_name="node", pod_uid and container_id=<A's
# id>; w's carry other/batch-1/worker; /metrics holds no raw control
# byte; stderr says once that the third container's names cannot be read
# (no runtime state), and the status page says it too.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/prom.sh"
need_root
command -v podman >/dev/null || fail "podman is not installed (Debian package podman): run scripts/setup.sh"
command -v runc >/dev/null || fail "runc is not installed (Debian package runc): run scripts/setup.sh"
t_begin=$EPOCHREALTIME

cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$cgroot" ] || fail "no cgroup v2 hierarchy is mounted (/proc/self/mounts has no cgroup2)"

# The root filesystem: node, the libraries it loads, the workload.
rootfs=$TMP/rootfs
node_bin=$(command -v node)
mkdir -p "$rootfs/usr/bin" "$rootfs/app" "$rootfs/tmp" "$rootfs/proc" "$rootfs/dev" "$rootfs/sys"
cp "$node_bin" "$rootfs/usr/bin/node"
for lib in $(ldd "$node_bin" | grep -o '/[^ ]*'); do
	cp --parents -L "$lib" "$rootfs/"
done
cp "$TOP/scripts/workloads/phases.js" "$rootfs/app/"

# podman with a storage of its own (nothing of the host's podman is
# touched).  runc: crun refuses a hybrid cgroup hierarchy whose v2 part
# has controllers.  The rlimits: podman's defaults (nofile 1048576) are
# above what a sandbox without CAP_SYS_RESOURCE may set.
host_run=$TMP/host/run
storage=$host_run/containers/storage
pod=(podman --root "$storage" --runroot "$TMP/podman-run" --tmpdir "$TMP/podman-tmp"
	--storage-driver overlay --runtime runc --cgroup-manager cgroupfs --events-backend none)
made_parent=
[ -d "$cgroot/libpod_parent" ] || made_parent=1
made=()
k8s_cleanup() {
	local i d p
	"${pod[@]}" rm -f -t 0 -a >/dev/null 2>&1 || true
	# What podman left mounted under TMP (the overlay driver may bind its
	# home onto itself), innermost first, so that TMP can be removed.  A
	# podman cleanup process can still be mounting as `rm` returns (seen
	# on a fresh machine): look again until nothing is left, and detach
	# lazily what is still busy.
	for i in 1 2 3 4 5; do
		local left=0
		for d in $(awk -v t="$TMP/" 'index($2, t) == 1 { print $2 }' /proc/self/mounts | sort -r); do
			umount "$d" 2>/dev/null || umount -l "$d" ||
				echo "test_serve_k8s_names: could not unmount $d" >&2
			left=1
		done
		[ "$left" = 0 ] && [ "$i" -gt 1 ] && break
		sleep 0.2
	done
	[ -n "${ghost:-}" ] && { kill "$ghost" 2>/dev/null || true; wait "$ghost" 2>/dev/null || true; }
	for ((i = ${#made[@]} - 1; i >= 0; i--)); do
		d=$cgroot/${made[i]}
		[ -d "$d" ] || continue
		for p in $(cat "$d/cgroup.procs" 2>/dev/null); do
			echo "$p" >"$cgroot/cgroup.procs" 2>/dev/null || true
		done
		rmdir "$d" 2>/dev/null || echo "test_serve_k8s_names: could not remove $d" >&2
	done
	# podman's own parent cgroup (cgroupfs), when it was made here.
	if [ -n "$made_parent" ]; then
		for d in /sys/fs/cgroup/*/libpod_parent "$cgroot/libpod_parent"; do
			[ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
		done
	fi
	true
}
trap 'k8s_cleanup; _cleanup' EXIT

# csv VALUE — VALUE quoted for a podman flag that splits at commas
# (--annotation is a string slice: quotes double, the whole is quoted).
csv() { printf '"%s"' "${1//\"/\"\"}"; }

hostile=$(printf 'api-\033[31mred\033[0m-"quoted"-\\back-%0300d' 0)
# run_container NAMESPACE POD CONTAINER TAG — starts one, prints its id.
run_container() {
	"${pod[@]}" run -d --network none --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
		--annotation "$(csv "io.kubernetes.pod.namespace=$1")" \
		--annotation "$(csv "io.kubernetes.pod.name=$2")" \
		--annotation "$(csv "io.kubernetes.container.name=$3")" \
		--rootfs "$rootfs" /usr/bin/node /app/phases.js --timer-ms 20 "bpfspec-test-$$-$4"
}
t0=$EPOCHREALTIME
id_a=$(run_container shop "$hostile" node a) || fail "podman run failed"
id_b=$(run_container other batch-1 worker b) || fail "podman run failed"
echo "measured: two containers started in   $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s ($("${pod[@]}" --version))"
for id in "$id_a" "$id_b"; do
	[[ $id =~ ^[0-9a-f]{64}$ ]] || fail "podman's container id '$id' is not 64 lower-case hex"
done

# What podman wrote: the layout and the annotations.
cfg_a=$storage/overlay-containers/$id_a/userdata/config.json
[ -f "$cfg_a" ] || fail "podman wrote no $cfg_a ($(find "$storage" -name config.json | head -3))"
got=$(jq -r '.annotations["io.kubernetes.pod.name"]' "$cfg_a")
[ "$got" = "$hostile" ] || fail "config.json holds io.kubernetes.pod.name '$got', not the one given"
echo "measured: config.json of A            $(stat -c %s "$cfg_a") bytes, the three annotations as given"

# Each process into the cgroup CRI-O would have made for it.
# into_pod PID CGROUP — moves PID there (making the directories).
into_pod() {
	local path= comp
	for comp in ${2//\// }; do
		path=${path:+$path/}$comp
		[ -d "$cgroot/$path" ] && continue
		mkdir "$cgroot/$path" || fail "cannot make the cgroup $cgroot/$path"
		made+=("$path")
	done
	echo "$1" >"$cgroot/$2/cgroup.procs" || fail "cannot move $1 into $cgroot/$2"
	[ "$(sed -n 's/^0:://p' "/proc/$1/cgroup")" = "/$2" ] || fail "process $1 is not in /$2"
}
uid=$(cat /proc/sys/kernel/random/uuid)
pid_a=$("${pod[@]}" inspect -f '{{.State.Pid}}' "$id_a")
pid_b=$("${pod[@]}" inspect -f '{{.State.Pid}}' "$id_b")
into_pod "$pid_a" "kubepods/besteffort/pod$uid/crio-$id_a"
into_pod "$pid_b" "kubepods/besteffort/pod$uid/crio-$id_b"
ghost_id=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
sleep 1000 &
ghost=$!
into_pod "$ghost" "kubepods/besteffort/pod$uid/crio-$ghost_id"
echo "measured: in kubepods/besteffort/pod$uid: node $pid_a (A), node $pid_b (B), sleep $ghost (no state)"

start_serve libuv-phases --target api=k8s-namespace=shop --target 'w=k8s-container=work*' \
	--host-run "$host_run" --listen 127.0.0.1:0 --interval 2s

m=$TMP/metrics.txt
t0=$EPOCHREALTIME
for ((i = 0; i < 120; i++)); do
	scrape "$m"
	grep -q '^bpfspec_latency_seconds_count{[^}]*probe="timers"[^}]*target="api"' "$m" &&
		grep -q '^bpfspec_latency_seconds_count{[^}]*probe="timers"[^}]*target="w"' "$m" && break
	sleep 0.5
done
for t in api w; do
	grep -q "^bpfspec_latency_seconds_count{[^}]*target=\"$t\"" "$m" ||
		{ sed 's/^/    serve: /' "$TMP/serve.err" >&2; fail "no latency series for target $t within 60 s"; }
done
echo "measured: series of both targets after $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
for t in api w; do
	n=$(awk -v t="target=\"$t\"" '/^bpfspec_targets\{/ && index($0, t) { print $NF }' "$m")
	echo "measured: bpfspec_targets{target=\"$t\"}  $n (truth 1)"
	[ "$n" = 1 ] || fail "bpfspec_targets{target=\"$t\"} is ${n:-absent}, not 1"
done

# The label value Prometheus reads: the text form (safe.h) of the first
# 253 bytes, then '\\' and '"' escaped.
want_pod=$(python3 -c 'import sys
raw = sys.argv[1].encode()[:253]
text = "".join("\\\\" if b == 0x5c else "\\x%02x" % b if b < 0x20 else chr(b) for b in raw)
print(text.replace("\\", "\\\\").replace("\"", "\\\""))' "$hostile")
own='^(bpfspec_up|bpfspec_targets|bpfspec_build_info|bpfspec_probes_attached|bpfspec_scrape_duration_seconds|bpfspec_restarts_total)[{ ]'
grep -v '^#' "$m" | grep -Ev "$own" | grep 'target="api"' >"$TMP/api.txt" || true
grep -v '^#' "$m" | grep -Ev "$own" | grep 'target="w"' >"$TMP/w.txt" || true
# has FILE LABEL=VALUE... — every line of FILE carries every pair.
has() {
	local f=$1 pair bad
	shift
	for pair in "$@"; do
		bad=$(grep -Fv "$pair" "$f" | head -2 || true)
		[ -z "$bad" ] || fail "series of $(basename "$f" .txt) without $pair: $bad"
	done
}
has "$TMP/api.txt" 'k8s_namespace_name="shop"' "k8s_pod_name=\"$want_pod\"" 'k8s_container_name="node"' \
	"pod_uid=\"$uid\"" "container_id=\"$id_a\""
has "$TMP/w.txt" 'k8s_namespace_name="other"' 'k8s_pod_name="batch-1"' \
	'k8s_container_name="worker"' "container_id=\"$id_b\""
echo "measured: series of api               $(grep -c . "$TMP/api.txt"), all with shop / ${want_pod:0:40}... / node"
echo "measured: series of w                 $(grep -c . "$TMP/w.txt"), all with other / batch-1 / worker"
python3 "$TOP/tests/check_safe_output.py" "$m" || fail "/metrics holds bytes that could act on a terminal"

# The third container: said once, on stderr and on the page.
said=$(grep -c "cannot read a container's Kubernetes names: no runtime state for container ${ghost_id:0:12} under " "$TMP/serve.err" || true)
echo "measured: stderr lines about the names $said (truth 1, after $(grep -c . "$m") lines of /metrics and several scans)"
[ "$said" = 1 ] || { sed 's/^/    serve: /' "$TMP/serve.err" >&2; fail "serve said $said times that a container's names cannot be read"; }
curl -sS --max-time 10 -o "$TMP/index.html" "$SERVE_URL/" || fail "GET $SERVE_URL/ failed"
grep -qF "; containers without names: 1; the first failure: no runtime state for container ${ghost_id:0:12}" "$TMP/index.html" ||
	fail "the status page does not say that the third container's names cannot be read: $(grep -o '<p>Kubernetes names[^<]*' "$TMP/index.html")"
stop_serve
echo "measured: the whole test               $(awk -v a="$t_begin" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
