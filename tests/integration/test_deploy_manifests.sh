#!/usr/bin/env bash
# deploy/ holds what its documentation (docs/fleet.md) says it holds, and
# its parts agree with each other and with the binary (no cluster, no
# container daemon, no root: the files are read, not applied):
#  (a) every YAML file under deploy/ parses; every manifest is named in
#      kustomization.yaml (as a resource, or on a commented-out resource
#      line), every resource named exists, every namespaced object is in
#      the kustomization's namespace;
#  (b) the DaemonSet runs `serve`; each SPEC of its args is a bundled spec
#      (`bpfspec list`) or a file of the ConfigMap, at the path the
#      ConfigMap is mounted on; every ConfigMap spec passes
#      `bpfspec check` and is named in the args; each --target is
#      NAME=KIND=VALUE with a known selector;
#  (c) one port: --listen's, the DaemonSet's containerPort "metrics" (which
#      its probes, the Service, the PodMonitor and the NetworkPolicy
#      name), the Service's port, the Containerfile's EXPOSE and the
#      systemd unit's --listen; the DaemonSet listens on 0.0.0.0, the unit
#      on loopback;
#  (d) neither the DaemonSet nor the unit passes --unsafe; the DaemonSet
#      is not privileged, drops ALL and adds exactly the capabilities the
#      unit's CapabilityBoundingSet keeps (and SYS_ADMIN), runs with hostPID and a
#      read-only root;
#  (e) deploy/Containerfile's entrypoint is the binary in exec form, its
#      runtime stage installs the package of every library the binary
#      needs (ELF NEEDED, libc aside), of every library gen/ opens with
#      dlopen (whose error names that package: it must own the soname)
#      and bpftrace, and
#      its build stage the package of every -l the Makefile links
#      (`make print-libs`), or build-essential for the toolchain's own.
# build: release — it reads files; its only bpfspec calls (list, check) are
# the code paths of the golden tests, which run under the sanitizer too,
# and the sanitizer build links libraries (libasan) no image has.
. "$(dirname "$0")/../lib.sh"

D=$TOP/deploy
PY=/usr/bin/python3	# Debian's, with python3-yaml
"$PY" -c 'import yaml' 2>/dev/null || fail "python3-yaml is missing: run scripts/setup.sh"
command -v dpkg >/dev/null || fail "dpkg is needed to name the packages that own libraries"
[ -x "$BPFSPEC" ] || fail "$BPFSPEC is not built (make all)"

# facts.py DIR — one fact per line, "KEY VALUE...", from deploy/'s YAML
# files; exits 1 naming the file that does not parse.
cat >"$TMP/facts.py" <<'PY'
import glob, os, re, sys, yaml

d = sys.argv[1]
def out(*a):
    print(" ".join(str(x) for x in a))

docs = []
for path in sorted(glob.glob(os.path.join(d, "*.yaml")) + glob.glob(os.path.join(d, "specs", "*.yaml"))):
    rel = os.path.relpath(path, d)
    try:
        with open(path) as f:
            loaded = [x for x in yaml.safe_load_all(f) if x is not None]
    except yaml.YAMLError as e:
        sys.exit("%s does not parse: %s" % (rel, str(e).replace("\n", " ")))
    out("file", rel, len(loaded))
    if rel.startswith("specs/"):
        continue
    for doc in loaded:
        if not isinstance(doc, dict):
            sys.exit("%s: a document is not a mapping" % rel)
        docs.append((rel, doc))

def port_of(p):
    return p if p is not None else "-"

for rel, doc in docs:
    kind = doc.get("kind", "-")
    meta = doc.get("metadata") or {}
    if kind == "Kustomization":
        out("kz_namespace", doc.get("namespace", "-"))
        for r in doc.get("resources", []):
            out("kz_resource", r)
        with open(os.path.join(d, rel)) as f:
            for line in f:
                m = re.match(r"^\s*#\s*-\s*(\S+\.yaml)\s*$", line)
                if m:
                    out("kz_resource_commented", m.group(1))
        for g in doc.get("configMapGenerator", []):
            for fl in g.get("files", []):
                out("kz_gen", g["name"], fl)
        continue
    out("doc", rel, kind, meta.get("name", "-"), meta.get("namespace", "-"))
    if kind == "DaemonSet":
        pod = doc["spec"]["template"]["spec"]
        out("ds_hostpid", str(pod.get("hostPID", False)).lower())
        for v in pod.get("volumes", []):
            if "configMap" in v:
                out("ds_volume_cm", v["name"], v["configMap"]["name"])
        for c in pod["containers"]:
            for a in c.get("args", []):
                out("ds_arg", a)
            for p in c.get("ports", []):
                out("ds_port", p.get("name", "-"), p["containerPort"])
            for probe in ("readinessProbe", "livenessProbe"):
                g = (c.get(probe) or {}).get("httpGet")
                if g:
                    out("ds_probe", probe, port_of(g.get("port")), g.get("path", "-"))
            for m in c.get("volumeMounts", []):
                out("ds_mount", m["name"], m["mountPath"])
            sc = c.get("securityContext") or {}
            out("ds_privileged", str(sc.get("privileged", False)).lower())
            out("ds_rorootfs", str(sc.get("readOnlyRootFilesystem", False)).lower())
            out("ds_escalation", str(sc.get("allowPrivilegeEscalation", True)).lower())
            caps = sc.get("capabilities") or {}
            for x in caps.get("add", []):
                out("ds_cap_add", x)
            for x in caps.get("drop", []):
                out("ds_cap_drop", x)
    elif kind == "Service":
        for p in doc["spec"].get("ports", []):
            out("svc_port", p.get("name", "-"), p["port"], port_of(p.get("targetPort")))
    elif kind == "PodMonitor":
        for e in doc["spec"].get("podMetricsEndpoints", []):
            out("pm_port", port_of(e.get("port")), e.get("path", "-"))
    elif kind == "NetworkPolicy":
        for rule in doc["spec"].get("ingress", []):
            for p in rule.get("ports", []):
                out("np_port", port_of(p.get("port")))
PY
"$PY" "$TMP/facts.py" "$D" >"$TMP/facts" 2>"$TMP/facts.err" || fail "$(cat "$TMP/facts.err")"
# fact KEY — the values of KEY's lines, one a line.
fact() { awk -v k="$1" '$1 == k { sub(/^[^ ]+ /, ""); print }' "$TMP/facts"; }
# one KEY — KEY's single value; fails unless there is exactly one.
one() {
	local v
	v=$(fact "$1")
	[ -n "$v" ] && [ "$(printf '%s\n' "$v" | wc -l)" -eq 1 ] || fail "expected one '$1' in deploy/, found: ${v:-none}"
	printf '%s\n' "$v"
}

# ---- (a) files, kustomization, namespace ---------------------------------

n_files=$(fact file | wc -l)
[ "$n_files" -ge 8 ] || fail "only $n_files YAML files under deploy/"
echo "measured: YAML files under deploy/ that parse: $n_files ($(fact file | awk '{ s += $2 } END { print s }') documents)"
ns=$(one kz_namespace)
for f in $(fact file | awk '{ print $1 }'); do
	case $f in kustomization.yaml | specs/*) continue ;; esac
	fact kz_resource | grep -qx "$f" || fact kz_resource_commented | grep -qx "$f" ||
		fail "deploy/$f is not named in deploy/kustomization.yaml"
done
for f in $(fact kz_resource) $(fact kz_resource_commented) $(fact kz_gen | awk '{ print $2 }'); do
	[ -f "$D/$f" ] || fail "deploy/kustomization.yaml names $f, which does not exist"
done
while read -r file kind name namespace; do
	case $kind in
	Namespace) [ "$name" = "$ns" ] || fail "deploy/$file: Namespace $name, not the kustomization's $ns" ;;
	*) [ "$namespace" = "$ns" ] || fail "deploy/$file: $kind $name is in namespace '$namespace', not $ns" ;;
	esac
done < <(fact doc)
fact doc | awk '{ print $2 }' | grep -qx DaemonSet || fail "no DaemonSet under deploy/"
echo "measured: manifests: $(fact doc | awk '{ printf "%s%s", sep, $2; sep = ", " }'), all in namespace $ns"

# ---- (b) the DaemonSet's specs and targets ---------------------------------

mapfile -t args < <(fact ds_arg)
[ "${args[0]:-}" = serve ] || fail "the DaemonSet's args do not start with serve: ${args[*]}"
"$BPFSPEC" list | awk '/^[a-z0-9]/ { print $1 }' >"$TMP/bundled"
[ -s "$TMP/bundled" ] || fail "bpfspec list named no spec"
cm=$(fact ds_volume_cm | awk 'NR == 1 { print $2 }')
cm_vol=$(fact ds_volume_cm | awk 'NR == 1 { print $1 }')
[ -n "$cm" ] || fail "the DaemonSet mounts no ConfigMap"
fact kz_gen | awk '{ print $1 }' | grep -qx "$cm" ||
	fail "the DaemonSet mounts ConfigMap $cm, which deploy/kustomization.yaml does not generate"
cm_dir=$(fact ds_mount | awk -v v="$cm_vol" '$1 == v { print $2 }')
[ -n "$cm_dir" ] || fail "the DaemonSet does not mount volume $cm_vol"
specs=()
for a in "${args[@]:1}"; do
	case $a in -*) break ;; esac
	specs+=("$a")
done
[ "${#specs[@]}" -ge 1 ] || fail "the DaemonSet's serve names no spec"
for s in "${specs[@]}"; do
	case $s in
	*/*)
		[ "$(dirname "$s")" = "$cm_dir" ] || fail "spec $s is not under the ConfigMap's mount $cm_dir"
		src=$(fact kz_gen | awk -v c="$cm" -v b="$(basename "$s")" '$1 == c { n = split($2, p, "/"); if (p[n] == b) print $2 }')
		[ -n "$src" ] || fail "spec $s is not a file of ConfigMap $cm"
		echo "measured: DaemonSet spec $s: deploy/$src of ConfigMap $cm"
		;;
	*)
		grep -qx "$s" "$TMP/bundled" || fail "spec $s of the DaemonSet is neither bundled (bpfspec list) nor a path"
		echo "measured: DaemonSet spec $s: bundled"
		;;
	esac
done
for src in $(fact kz_gen | awk -v c="$cm" '$1 == c { print $2 }'); do
	"$BPFSPEC" check "$D/$src" >"$TMP/check.out" 2>&1 || fail "bpfspec check deploy/$src: $(cat "$TMP/check.out")"
	printf '%s\n' "${specs[@]}" | grep -qx "$cm_dir/$(basename "$src")" ||
		fail "deploy/$src is in ConfigMap $cm but the DaemonSet's serve does not name $cm_dir/$(basename "$src")"
	echo "measured: bpfspec check deploy/$src: $(sed 's/.*: //' "$TMP/check.out")"
done
n_targets=0
for ((i = 1; i < ${#args[@]}; i++)); do
	[ "${args[i]}" = --target ] || continue
	t=${args[i + 1]:-}
	[[ $t =~ ^[A-Za-z0-9_.-]{1,63}=(comm|exe|cmdline|cgroup|unit|pid|k8s-namespace|k8s-pod|k8s-container)=.+$ ]] ||
		fail "the DaemonSet's --target '$t' is not NAME=SELECTOR (comm, exe, cmdline, cgroup, unit, pid, k8s-namespace, k8s-pod, k8s-container)"
	n_targets=$((n_targets + 1))
done
[ "$n_targets" -ge 1 ] || fail "the DaemonSet's serve has no --target"

# ---- (c) one port ---------------------------------------------------------

# flag_value FLAG WORD... — the word after FLAG.
flag_value() {
	local f=$1 prev=
	shift
	for w in "$@"; do
		[ "$prev" = "$f" ] && { printf '%s\n' "$w"; return; }
		prev=$w
	done
}
listen=$(flag_value --listen "${args[@]}")
[ "$listen" = "0.0.0.0:${listen##*:}" ] || fail "the DaemonSet listens on '$listen', not 0.0.0.0:PORT (a pod's loopback is out of a scraper's reach)"
port=${listen##*:}
[ "$(fact ds_port | awk '$1 == "metrics" { print $2 }')" = "$port" ] ||
	fail "the DaemonSet's containerPort metrics is not --listen's $port: $(fact ds_port)"
[ "$(fact ds_probe | wc -l)" -eq 2 ] || fail "the DaemonSet needs an httpGet readiness and liveness probe: $(fact ds_probe)"
fact ds_probe | awk '$2 != "metrics" || $3 != "/metrics" { exit 1 }' ||
	fail "a probe does not get /metrics on port metrics: $(fact ds_probe)"
svc=$(one svc_port)
read -r sname sport starget <<<"$svc"
[ "$sname" = metrics ] && [ "$sport" = "$port" ] || fail "the Service's port is '$svc', not metrics $port"
[ "$starget" = metrics ] || [ "$starget" = "$port" ] || fail "the Service's targetPort $starget is not metrics"
read -r pport ppath <<<"$(one pm_port)"
[ "$pport" = metrics ] && [ "$ppath" = /metrics ] || fail "the PodMonitor scrapes $pport $ppath, not metrics /metrics"
[ "$(one np_port)" = metrics ] || [ "$(one np_port)" = "$port" ] || fail "the NetworkPolicy admits port $(one np_port), not metrics"
grep -qx "EXPOSE $port" "$D/Containerfile" || fail "deploy/Containerfile does not EXPOSE $port"
unit=$D/bpfspec-serve.service
[ -f "$unit" ] || fail "deploy/bpfspec-serve.service is missing"
# The unit's ExecStart, continuation lines joined.
exec_start=$(awk '/^ExecStart=/ { on = 1 } on { l = $0; c = sub(/\\$/, "", l); s = s " " l; if (!c) { on = 0 } } END { print s }' "$unit")
exec_start=${exec_start# ExecStart=}
read -r -a unit_words <<<"$exec_start"
[ "${unit_words[1]:-}" = serve ] || fail "the unit's ExecStart does not run serve: $exec_start"
[ "$(flag_value --listen "${unit_words[@]}")" = "127.0.0.1:$port" ] ||
	fail "the unit listens on '$(flag_value --listen "${unit_words[@]}")', not loopback port $port"
echo "measured: port $port: DaemonSet (0.0.0.0, containerPort, probes), Service, PodMonitor, NetworkPolicy, EXPOSE, unit (127.0.0.1)"

# ---- (d) privileges ---------------------------------------------------------

for w in "${args[@]}" "${unit_words[@]}"; do
	[ "$w" != --unsafe ] || fail "--unsafe is given to serve in deploy/"
done
[ "$(one ds_hostpid)" = true ] || fail "the DaemonSet does not set hostPID: true"
[ "$(one ds_privileged)" = false ] || fail "the DaemonSet is privileged (the fallback is to stay commented out)"
[ "$(one ds_rorootfs)" = true ] || fail "the DaemonSet's root filesystem is not read-only"
[ "$(one ds_escalation)" = false ] || fail "the DaemonSet allows privilege escalation"
[ "$(fact ds_cap_drop)" = ALL ] || fail "the DaemonSet drops '$(fact ds_cap_drop)', not ALL"
# The same set but SYS_ADMIN, which the DaemonSet adds for setns(2) into
# the node's cgroup namespace (the unit is in it already).
ds_caps=$(fact ds_cap_add | grep -vx SYS_ADMIN | sort | tr '\n' ' ')
unit_caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit" | tr ' ' '\n' | sed 's/^CAP_//' | sort | tr '\n' ' ')
[ -n "$ds_caps" ] && [ "$ds_caps" = "$unit_caps" ] ||
	fail "the DaemonSet adds '$ds_caps' (and SYS_ADMIN) but the unit keeps '$unit_caps'"
fact ds_cap_add | grep -qx SYS_ADMIN || fail "the DaemonSet does not add SYS_ADMIN: no pod labels in a cgroup namespace of its own"
echo "measured: capabilities (DaemonSet and unit): $ds_caps"

# ---- (e) the image ------------------------------------------------------------

cf=$D/Containerfile
grep -qx 'ENTRYPOINT \["/usr/local/bin/bpfspec"\]' "$cf" || fail "deploy/Containerfile's ENTRYPOINT is not [\"/usr/local/bin/bpfspec\"]"
[ "$(grep -c '^FROM ' "$cf")" -eq 2 ] || fail "deploy/Containerfile is not two stages"
# apt_packages STAGE — the packages `apt-get install` names in the first
# (build) or last (runtime) stage, continuation lines joined.
apt_packages() {
	awk -v want="$1" '
	/^FROM / { stage++ }
	{ l = $0; c = sub(/\\$/, "", l); line = line " " l; if (c) next }
	{ if ((want == "build" && stage == 1) || (want == "runtime" && stage == 2)) print line; line = "" }' "$cf" |
		grep 'apt-get install' | sed 's/.*apt-get install//; s/&&.*//' | tr ' ' '\n' | grep -v '^-' | grep -v '^$' | sort -u
}
apt_packages build >"$TMP/build.pkgs"
apt_packages runtime >"$TMP/runtime.pkgs"
[ -s "$TMP/build.pkgs" ] && [ -s "$TMP/runtime.pkgs" ] || fail "no apt-get install found in a stage of deploy/Containerfile"
# owner PATH — the Debian package that holds PATH (the path itself, ".."
# folded, else the file it links to; as installed, or under the other of
# /lib and /usr/lib: merged /usr), without its architecture.
owner() {
	local p q o
	for p in "$(realpath -s "$1")" "$(readlink -f "$1")"; do
		for q in "$p" "/usr$p" "${p#/usr}"; do
			o=$(dpkg -S "$q" 2>/dev/null | grep -v '^diversion' | head -1 | cut -d: -f1)
			[ -n "$o" ] && { printf '%s\n' "$o"; return 0; }
		done
	done
	return 1
}
n=0
for lib in $(readelf -d "$BPFSPEC" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
	path=$(ldd "$BPFSPEC" | awk -v l="$lib" '$1 == l { print $3 }')
	[ -n "$path" ] || fail "ldd does not resolve $lib"
	pkg=$(owner "$path") || fail "no package owns $path ($lib)"
	[ "$pkg" = libc6 ] && continue
	grep -qx "$pkg" "$TMP/runtime.pkgs" ||
		fail "bpfspec needs $lib (package $pkg), which deploy/Containerfile's runtime stage does not install"
	n=$((n + 1))
done
grep -qx bpftrace "$TMP/runtime.pkgs" || fail "deploy/Containerfile's runtime stage does not install bpftrace"
# The libraries bpfspec opens with dlopen (each a "SONAME", "PACKAGE"
# pair in gen/, given to lazylib_open): the package its error names owns
# the soname here, and the runtime stage installs it.
m=0
while read -r so pkg; do
	path=$(ldconfig -p | awk -v l="$so" '$1 == l && /x86-64/ { print $NF; exit }')
	[ -n "$path" ] || fail "ldconfig does not know $so, which bpfspec opens with dlopen"
	[ "$(owner "$path")" = "$pkg" ] || fail "$so is in package $(owner "$path"), not $pkg as bpfspec's error says"
	grep -qx "$pkg" "$TMP/runtime.pkgs" ||
		fail "bpfspec opens $so (package $pkg), which deploy/Containerfile's runtime stage does not install"
	m=$((m + 1))
done < <(grep -ho '"lib[^"]*[.]so[.][0-9]*", "[^"]*"' "$TOP"/gen/*/*.c | tr -d '",')
[ "$m" -ge 4 ] || fail "found $m libraries opened on first use in gen/, expected libmicrohttpd, libcrypt, libstdc++ and libbcc"
echo "measured: runtime stage installs the packages of $n libraries bpfspec links (libc aside), $m it opens on first use, and bpftrace"
n=0
for l in $(make -s -C "$TOP" --no-print-directory print-libs); do
	name=${l#-l}
	path=
	for f in "lib$name.so" "lib$name.a"; do
		p=$(cc -print-file-name="$f")
		[ "$p" != "$f" ] && { path=$p; break; }
	done
	[ -n "$path" ] || fail "the toolchain finds no lib$name.so or .a for $l"
	pkg=$(owner "$path") || fail "no package owns $path ($l)"
	case $pkg in
	libc6-dev | libstdc++-*-dev | libgcc-*-dev) grep -qx build-essential "$TMP/build.pkgs" ||
		fail "$l comes with the toolchain ($pkg), but the build stage does not install build-essential" ;;
	*) grep -qx "$pkg" "$TMP/build.pkgs" ||
		fail "the Makefile links $l (package $pkg), which deploy/Containerfile's build stage does not install" ;;
	esac
	n=$((n + 1))
done
echo "measured: build stage installs the packages of the Makefile's $n -l libraries"
