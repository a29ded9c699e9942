#!/usr/bin/python3
"""mixin.py — reads the monitoring mixin of deploy/ (the Grafana dashboard
and the alerting rules) for the tests: structural checks, and the
dashboard's queries with its variables filled in.

  mixin.py dashboard-check DASHBOARD SERVE_METRICS_MD SERVE_MD
  mixin.py dashboard-queries DASHBOARD NAME=VALUE...
  mixin.py dashboard-rules DASHBOARD NAME=VALUE...
  mixin.py dashboard-series PROMETHEUS_URL DASHBOARD NAME=VALUE...
  mixin.py alerts-check RULES RUNBOOK_MD SERVE_METRICS_MD SERVE_MD
  mixin.py rules-same RULES PROMETHEUSRULE
  mixin.py alerts-tested RULES PROMTOOL_TESTS

Each command prints what it found on stdout and exits 0, or prints every
problem on stderr (one a line, naming the panel or the alert) and exits 1.
Debian's python3 with python3-yaml; nothing else.
"""
import difflib
import json
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

import yaml

# Grafana's own variables that the dashboard may use, and what the tests
# put in their place when the caller gives no value.
GRAFANA_BUILTINS = ("__rate_interval", "__interval", "__range")
# Prometheus' own series that the mixin reads besides serve's families.
PROMETHEUS_OWN = {"up"}
SEVERITIES = ("critical", "warning", "info")
PROMQL_WORDS = {"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring",
                "group_left", "group_right", "inf", "nan", "atan2"}
# A Grafana variable in a query.  One whose name is a number ($1, ${1})
# is a label_replace() replacement's group, which Grafana leaves as it is
# (no variable has that name).
VARIABLE = re.compile(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]")


def fail_all(problems):
    """Prints PROBLEMS on stderr and exits 1 when there are any."""
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        sys.exit(1)


def load_json(path):
    """The JSON document at PATH; exits naming the file when it does not parse."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("%s: %s" % (path, e))


def load_yaml(path):
    """The YAML document at PATH; exits naming the file when it does not parse."""
    try:
        with open(path) as f:
            return yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        sys.exit("%s: %s" % (path, str(e).replace("\n", " ")))


def known_families(metrics_md, serve_md):
    """{name: type} of the families serve exports: the rows of the
    Families table of docs/serve-metrics.md (OpenTelemetry's names
    included), and serve's own families,
    which docs/serve.md names in backquotes (type "gauge or counter")."""
    families = {}
    with open(metrics_md) as f:
        for line in f:
            m = re.match(r"^\| `((?:bpfspec|nodejs|http)_\w+)` \| (\w+) \|", line)
            if m:
                families[m.group(1)] = m.group(2)
    with open(serve_md) as f:
        for name in re.findall(r"`(bpfspec_\w+)", f.read()):
            families.setdefault(name, "serve")
    return families


def metric_names(expr):
    """The metric names EXPR reads: what is left of it once strings, label
    matchers, ranges and the label lists of by/without/on/ignoring/group_*
    are taken out, as identifiers that are neither PromQL keywords nor
    followed by "(" (functions and aggregations)."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    text = re.sub(r"\{[^}]*\}", " ", text)
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    text = re.sub(r"\[[^\]]*\]", " ", text)
    names = set()
    for m in re.finditer(r"(?<![\w.$])[A-Za-z_:][\w:]*", text):
        if m.group(0).lower() in PROMQL_WORDS or text[m.end():].lstrip().startswith("("):
            continue
        names.add(m.group(0))
    return names


def unknown_metrics(expr, families):
    """The names EXPR reads that serve does not export (a histogram's
    _bucket, _sum and _count count as its family) nor Prometheus."""
    bad = []
    for name in sorted(metric_names(expr)):
        if name in families or name in PROMETHEUS_OWN:
            continue
        base = re.sub(r"_(bucket|sum|count)$", "", name)
        if families.get(base) == "histogram":
            continue
        bad.append(name)
    return bad


def flat_panels(dashboard):
    """Every panel of DASHBOARD, those inside (collapsed) rows included."""
    out = []
    for p in dashboard.get("panels", []):
        out.append(p)
        out.extend(p.get("panels", []) if p.get("type") == "row" else [])
    return out


def variable_query(var):
    """A query variable's PromQL text (a string, or {"query": ...})."""
    q = var.get("query", "")
    return q.get("query", "") if isinstance(q, dict) else q


def check_variables(dashboard, families):
    """Problems of the dashboard's templating: a Prometheus datasource
    variable, and query variables target and spec from label_values().
    Returns (problems, names of the variables, the datasource's name)."""
    problems, names, ds_name = [], [], None
    for var in dashboard.get("templating", {}).get("list", []):
        name = var.get("name")
        names.append(name)
        if var.get("type") == "datasource" and var.get("query") == "prometheus":
            ds_name = name
        if var.get("type") == "query":
            q = variable_query(var)
            m = re.match(r"^label_values\((.*),\s*\w+\s*\)$", q)
            if not m:
                problems.append("variable %s: its query is not label_values(SERIES, LABEL): %s" % (name, q))
            for m in unknown_metrics(m.group(1) if m else q, families):
                problems.append("variable %s reads %s, which serve does not export" % (name, m))
    if ds_name is None:
        problems.append("no variable of type datasource with query prometheus")
    for want in ("target", "spec"):
        var = [v for v in dashboard.get("templating", {}).get("list", []) if v.get("name") == want]
        if not var or var[0].get("type") != "query":
            problems.append("no query variable %s" % want)
    if len(set(names)) != len(names):
        problems.append("variable names repeat: %s" % names)
    return problems, names, ds_name


def check_panel(panel, ds_uid, variables, families):
    """Problems of one panel that is not a row: its place, its datasource,
    and each query (refId unique, expr present, variables defined,
    metrics exported)."""
    where = "panel %s (%s)" % (panel.get("id"), panel.get("title"))
    problems = []
    pos = panel.get("gridPos") or {}
    if not all(isinstance(pos.get(k), int) for k in "hwxy") or pos["x"] + pos["w"] > 24:
        problems.append("%s: gridPos %s is not h, w, x, y within 24 columns" % (where, pos))
    if (panel.get("datasource") or {}).get("uid") != ds_uid:
        problems.append("%s: its datasource is not %s" % (where, ds_uid))
    targets = panel.get("targets") or []
    if not targets:
        problems.append("%s: no query" % where)
    refs = [t.get("refId") for t in targets]
    if len(set(refs)) != len(refs) or None in refs:
        problems.append("%s: refIds missing or repeated: %s" % (where, refs))
    for t in targets:
        expr = t.get("expr", "")
        if not expr.strip():
            problems.append("%s %s: empty expr" % (where, t.get("refId")))
        for m in VARIABLE.finditer(expr):
            name = next(g for g in m.groups() if g)
            if name.isdigit():
                continue
            if name not in variables and name not in GRAFANA_BUILTINS:
                problems.append("%s %s: undefined variable $%s" % (where, t.get("refId"), name))
        for m in unknown_metrics(expr, families):
            problems.append("%s %s: reads %s, which serve does not export" % (where, t.get("refId"), m))
    return problems


def dashboard_check(path, metrics_md, serve_md):
    """The dashboard's structure (see check_variables and check_panel),
    panel ids unique integers; prints a summary."""
    d = load_json(path)
    families = known_families(metrics_md, serve_md)
    problems = []
    for key, kind in (("title", str), ("uid", str), ("schemaVersion", int), ("panels", list)):
        if not isinstance(d.get(key), kind):
            problems.append("dashboard: %s is missing or not a %s" % (key, kind.__name__))
    vproblems, variables, ds_name = check_variables(d, families)
    problems += vproblems
    panels = flat_panels(d)
    ids = [p.get("id") for p in panels]
    if not all(isinstance(i, int) for i in ids) or len(set(ids)) != len(ids):
        problems.append("panel ids are not unique integers: %s" % ids)
    queries = 0
    for p in panels:
        if p.get("type") == "row":
            continue
        problems += check_panel(p, "${%s}" % ds_name, variables, families)
        queries += len(p.get("targets") or [])
    fail_all(problems)
    print("panels %d (rows %d), queries %d, variables %s" % (
        len(panels), sum(p.get("type") == "row" for p in panels), queries, " ".join(variables)))


def substitute(expr, values):
    """EXPR with each $NAME, ${NAME} and [[NAME]] replaced by VALUES[NAME]
    (a number, a label_replace() group, left as it is); exits naming a
    variable that VALUES lacks."""
    def one(m):
        name = next(g for g in m.groups() if g)
        if name.isdigit():
            return m.group(0)
        if name not in values:
            sys.exit("no value given for variable $%s (in: %s)" % (name, expr))
        return values[name]
    return VARIABLE.sub(one, expr)


def parse_values(words):
    """{NAME: VALUE} from NAME=VALUE words."""
    values = {}
    for w in words:
        name, sep, value = w.partition("=")
        if not sep:
            sys.exit("expected NAME=VALUE, got: %s" % w)
        values[name] = value
    return values


def queries(path, words):
    """[(panel id, refId, title, expr)] of the dashboard, variables filled
    in from NAME=VALUE WORDS, each expr on one line."""
    values = parse_values(words)
    out = []
    for p in flat_panels(load_json(path)):
        for t in p.get("targets") or []:
            expr = " ".join(substitute(t.get("expr", ""), values).split())
            out.append((p.get("id"), t.get("refId"), p.get("title", ""), expr))
    return out


def dashboard_queries(path, words):
    """Prints each query as ID TAB REFID TAB TITLE TAB EXPR."""
    for q in queries(path, words):
        print("%s\t%s\t%s\t%s" % q)


def dashboard_rules(path, words):
    """Prints a Prometheus rules file with one recording rule per query
    (dashboard_panel_ID_REFID) and one per query variable's series
    selector (dashboard_variable_NAME), variables filled in from NAME=VALUE
    WORDS, for `promtool check rules` to parse them."""
    rules = [{"record": "dashboard_panel_%s_%s" % (i, ref), "expr": expr}
             for i, ref, _, expr in queries(path, words)]
    values = parse_values(words)
    for var in load_json(path).get("templating", {}).get("list", []):
        m = re.match(r"^label_values\((.*),\s*\w+\s*\)$", variable_query(var))
        if var.get("type") == "query" and m:
            rules.append({"record": "dashboard_variable_%s" % var.get("name"),
                          "expr": substitute(m.group(1), values)})
    print(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}, sort_keys=False))


def series_count(prom_url, expr):
    """How many series (or 1 for a scalar) Prometheus at PROM_URL answers
    the instant query EXPR with now; exits with Prometheus' error when it
    refuses the query or does not answer."""
    data = urllib.parse.urlencode({"query": expr}).encode()
    try:
        with urllib.request.urlopen(prom_url + "/api/v1/query", data, timeout=10) as r:
            answer = json.load(r)
    except urllib.error.HTTPError as e:
        answer = json.load(e)
    except (OSError, ValueError) as e:
        sys.exit("Prometheus at %s did not answer %s: %s" % (prom_url, expr, e))
    if answer.get("status") != "success":
        sys.exit("Prometheus refused %s: %s" % (expr, answer.get("error")))
    result = answer["data"]["result"]
    return 1 if answer["data"]["resultType"] == "scalar" else len(result)


def dashboard_series(prom_url, path, words):
    """Prints, for each query of the dashboard (variables filled in from
    NAME=VALUE WORDS), ID TAB REFID TAB SERIES TAB TITLE: the number of
    series Prometheus answers it with now."""
    for i, ref, title, expr in queries(path, words):
        print("%s\t%s\t%d\t%s" % (i, ref, series_count(prom_url, expr), title))


def heading_anchors(markdown_path):
    """The anchors of the Markdown file's headings, as Git hosts make them:
    lower case, punctuation but - and _ dropped, spaces as -."""
    anchors = set()
    with open(markdown_path) as f:
        for line in f:
            m = re.match(r"^#+\s+(.*?)\s*$", line)
            if m:
                slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
                anchors.add(slug)
    return anchors


def check_alert(rule, anchors, families):
    """Problems of one alerting rule: for, a known severity, summary and
    description, a runbook_url whose anchor is a heading of the runbook,
    and only exported metrics.  Returns (problems, the runbook page)."""
    name = rule.get("alert")
    problems = []
    if "for" not in rule:
        problems.append("alert %s: no for:" % name)
    if (rule.get("labels") or {}).get("severity") not in SEVERITIES:
        problems.append("alert %s: severity is not one of %s" % (name, ", ".join(SEVERITIES)))
    ann = rule.get("annotations") or {}
    for key in ("summary", "description", "runbook_url"):
        if not ann.get(key):
            problems.append("alert %s: no %s annotation" % (name, key))
    page, _, anchor = ann.get("runbook_url", "").partition("#")
    if anchor not in anchors:
        problems.append("alert %s: runbook_url anchor #%s is no heading of the runbook" % (name, anchor))
    for m in unknown_metrics(rule.get("expr", ""), families):
        problems.append("alert %s: reads %s, which serve does not export" % (name, m))
    return problems, page


def alerts_check(rules_path, runbook, metrics_md, serve_md):
    """Every rule of RULES is an alert that check_alert accepts, all on
    one runbook page; names unique.  Prints one line per alert."""
    groups = (load_yaml(rules_path) or {}).get("groups") or []
    anchors = heading_anchors(runbook)
    families = known_families(metrics_md, serve_md)
    problems, pages, names = [], set(), []
    for g in groups:
        for rule in g.get("rules") or []:
            if "alert" not in rule:
                problems.append("group %s: a rule that is not an alert: %s" % (g.get("name"), rule))
                continue
            p, page = check_alert(rule, anchors, families)
            problems += p
            pages.add(page)
            names.append(rule["alert"])
            print("%s\t%s\tfor %s\t%s" % (g.get("name"), rule["alert"], rule.get("for"),
                                          (rule.get("labels") or {}).get("severity")))
    if len(pages) > 1:
        problems.append("runbook_url names more than one page: %s" % sorted(pages))
    if len(set(names)) != len(names):
        problems.append("alert names repeat: %s" % names)
    if not names:
        problems.append("%s holds no alert" % rules_path)
    fail_all(problems)


def rules_same(rules_path, operator_path):
    """RULES' groups and the PrometheusRule's spec.groups are equal once
    parsed; else prints a diff of the two."""
    plain = (load_yaml(rules_path) or {}).get("groups")
    doc = load_yaml(operator_path) or {}
    if doc.get("apiVersion") != "monitoring.coreos.com/v1" or doc.get("kind") != "PrometheusRule":
        fail_all(["%s is not a monitoring.coreos.com/v1 PrometheusRule" % operator_path])
    other = (doc.get("spec") or {}).get("groups")
    if plain == other and plain:
        print("groups %d, rules %d: the same" % (len(plain), sum(len(g["rules"]) for g in plain)))
        return
    a = yaml.safe_dump(plain, sort_keys=False).splitlines()
    b = yaml.safe_dump(other, sort_keys=False).splitlines()
    diff = difflib.unified_diff(a, b, rules_path, operator_path + " spec.groups", lineterm="")
    fail_all(["the two rule files differ:"] + list(diff))


def alerts_tested(rules_path, tests_path):
    """Every alert of RULES is evaluated by the promtool test file TESTS at
    least once expecting alerts and once expecting none; prints the
    count of each per alert."""
    names = [r["alert"] for g in (load_yaml(rules_path) or {}).get("groups") or []
             for r in g.get("rules") or [] if "alert" in r]
    fired, silent = {}, {}
    for test in (load_yaml(tests_path) or {}).get("tests") or []:
        for case in test.get("alert_rule_test") or []:
            seen = fired if case.get("exp_alerts") else silent
            seen[case.get("alertname")] = seen.get(case.get("alertname"), 0) + 1
    problems = []
    for n in names:
        if not fired.get(n) or not silent.get(n):
            problems.append("alert %s: %s has %d evaluation(s) that expect it to fire and %d that "
                            "expect silence; it needs both" % (n, tests_path, fired.get(n, 0), silent.get(n, 0)))
        print("%s\tfires %d\tsilent %d" % (n, fired.get(n, 0), silent.get(n, 0)))
    problems += ["%s tests alert %s, which %s does not have" % (tests_path, n, rules_path)
                 for n in sorted(set(fired) | set(silent)) if n not in names]
    fail_all(problems)


def main(argv):
    # name: (function, fewest arguments, most arguments or None)
    commands = {
        "dashboard-check": (dashboard_check, 3, 3),
        "dashboard-queries": (lambda p, *w: dashboard_queries(p, w), 1, None),
        "dashboard-rules": (lambda p, *w: dashboard_rules(p, w), 1, None),
        "dashboard-series": (lambda u, p, *w: dashboard_series(u, p, w), 2, None),
        "alerts-check": (alerts_check, 4, 4),
        "rules-same": (rules_same, 2, 2),
        "alerts-tested": (alerts_tested, 2, 2),
    }
    if len(argv) < 2 or argv[1] not in commands:
        sys.exit(__doc__)
    fn, least, most = commands[argv[1]]
    args = argv[2:]
    if len(args) < least or (most is not None and len(args) > most):
        sys.exit(__doc__)
    fn(*args)


if __name__ == "__main__":
    main(sys.argv)
