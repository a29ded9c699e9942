#!/usr/bin/env bash
# The monitoring mixin of deploy/ (docs/fleet.md, "Dashboard and alerts")
# is sound, read with Debian's promtool and python3-yaml (no Grafana, no
# cluster, no root; tests/mixin.py does the reading):
#  (a) deploy/monitoring/alerts.yaml passes `promtool check rules`; every
#      rule is an alert with a for:, a severity (critical, warning, info),
#      a summary, a description and a runbook_url on one page whose
#      anchor is a heading of docs/runbook-node-slow.md; every metric it
#      reads is a family of docs/serve-metrics.md, one of serve's own
#      (docs/serve.md) or Prometheus' up;
#  (b) deploy/prometheusrule.yaml is a monitoring.coreos.com/v1
#      PrometheusRule whose spec.groups equal alerts.yaml's groups, parsed;
#  (c) `promtool test rules deploy/monitoring/alerts_test.yaml` passes, and
#      it evaluates every alert both expecting it to fire and expecting
#      silence;
#  (d) the alerts' job (job="bpfspec") is the one the PodMonitor gives
#      (its jobLabel's value on the DaemonSet's pods) and the one
#      docs/fleet.md's scrape configs name;
#  (e) deploy/monitoring/dashboard.json: a Prometheus datasource variable,
#      target and spec variables from label_values(), unique integer panel
#      ids, every panel but a row has queries, on that datasource, using
#      defined variables (a label_replace() group, ${1}, is none) and
#      exported metrics only; and every query, its
#      variables filled in, parses: each becomes a recording rule of a
#      rules file that `promtool check rules` must accept (so do the
#      variables' series selectors).
# That every query returns data from a real serve is in
# test_serve_prometheus.sh.
# build: release — it runs no bpfspec at all.
. "$(dirname "$0")/../lib.sh"

PY=/usr/bin/python3	# Debian's, with python3-yaml
"$PY" -c 'import yaml' 2>/dev/null || fail "python3-yaml is missing: run scripts/setup.sh"
command -v promtool >/dev/null || fail "promtool is missing (Debian package prometheus): run scripts/setup.sh"
mixin() { "$PY" "$TOP/tests/mixin.py" "$@"; }
M=$TOP/deploy/monitoring
METRICS_DOCS=("$TOP/docs/serve-metrics.md" "$TOP/docs/serve.md")

# ---- (a) the rules file ------------------------------------------------------

promtool check rules "$M/alerts.yaml" >"$TMP/check.out" 2>&1 || fail "promtool check rules alerts.yaml: $(cat "$TMP/check.out")"
echo "measured: promtool check rules alerts.yaml: $(grep -o 'SUCCESS.*' "$TMP/check.out")"
mixin alerts-check "$M/alerts.yaml" "$TOP/docs/runbook-node-slow.md" "${METRICS_DOCS[@]}" >"$TMP/alerts" ||
	fail "deploy/monitoring/alerts.yaml: see above"
echo "measured: alerts with for, severity, annotations and a runbook section: $(wc -l <"$TMP/alerts")"
sed 's/^/    /' "$TMP/alerts"

# ---- (b) the PrometheusRule ---------------------------------------------------

same=$(mixin rules-same "$M/alerts.yaml" "$TOP/deploy/prometheusrule.yaml") ||
	fail "deploy/prometheusrule.yaml's groups are not deploy/monitoring/alerts.yaml's"
echo "measured: deploy/prometheusrule.yaml and alerts.yaml: $same"

# ---- (c) promtool's unit tests -------------------------------------------------

t0=$EPOCHREALTIME
promtool test rules "$M/alerts_test.yaml" >"$TMP/test.out" 2>&1 || {
	sed 's/^/    /' "$TMP/test.out"
	fail "promtool test rules deploy/monitoring/alerts_test.yaml failed"
}
mixin alerts-tested "$M/alerts.yaml" "$M/alerts_test.yaml" >"$TMP/tested" || fail "an alert is not tested both ways"
echo "measured: promtool test rules alerts_test.yaml: SUCCESS in $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s; every alert expected to fire and to stay silent"

# ---- (d) one job name ------------------------------------------------------------

grep -q 'up{job="bpfspec"}' "$M/alerts.yaml" || fail "the alerts do not select job=\"bpfspec\""
"$PY" - "$TOP/deploy/podmonitor.yaml" "$TOP/deploy/daemonset.yaml" >"$TMP/job" <<'PY' || fail "$(cat "$TMP/job")"
import sys, yaml
pm = yaml.safe_load(open(sys.argv[1]))
ds = yaml.safe_load(open(sys.argv[2]))
label = pm["spec"].get("jobLabel")
if not label:
    sys.exit("deploy/podmonitor.yaml sets no jobLabel: its job would be namespace/name")
print(ds["spec"]["template"]["metadata"]["labels"].get(label, "(no such pod label: %s)" % label))
PY
[ "$(cat "$TMP/job")" = bpfspec ] || fail "the PodMonitor's job would be '$(cat "$TMP/job")', the alerts select bpfspec"
n=$(grep -c 'job_name: bpfspec$' "$TOP/docs/fleet.md")
[ "$n" -ge 2 ] || fail "docs/fleet.md's scrape configs name job bpfspec $n times, expected 2 (static, Kubernetes)"
echo "measured: job bpfspec: alerts, PodMonitor (jobLabel), docs/fleet.md's $n scrape configs"

# ---- (e) the dashboard --------------------------------------------------------------

D=$M/dashboard.json
summary=$(mixin dashboard-check "$D" "${METRICS_DOCS[@]}") || fail "deploy/monitoring/dashboard.json: see above"
echo "measured: dashboard: $summary"
mixin dashboard-rules "$D" job=bpfspec instance=.+ target=api spec=libuv-phases thread_role=main \
	__rate_interval=1m __interval=15s __range=1h >"$TMP/dashboard-rules.yaml" || fail "the dashboard's queries could not be read"
promtool check rules "$TMP/dashboard-rules.yaml" >"$TMP/check.out" 2>&1 || {
	sed 's/^/    /' "$TMP/check.out"
	fail "a dashboard query does not parse (the rule names it: dashboard_panel_ID_REFID)"
}
echo "measured: dashboard queries and variable selectors that parse: $(grep -o 'SUCCESS.*' "$TMP/check.out")"
