/* serve_cli — the options of `bpfspec serve` (serve_internal.h). */
#include "serve/serve_internal.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "spec/spec.h"
#include "util/diag.h"
#include "util/safe.h"
#include "util/usage.h"

const char serve_help_text[] =
	"usage: bpfspec serve SPEC... --target NAME=SELECTOR... [--listen ADDR:PORT]\n"
	"                     [--interval D] [--web-config FILE] [--pid-label]\n"
	"                     [--set NAME=VALUE]... [--bpftrace PATH] [--host-run DIR]\n"
	"                     [-v]\n"
	"\n"
	"Traces every process the targets select with each SPEC, all the time, and\n"
	"serves the figures as cumulative Prometheus metrics on /metrics (a status\n"
	"page on /).  Processes that start later are picked up and ones that exit\n"
	"are dropped at the next scan (every interval); nothing restarts serve.\n"
	"\n"
	"SELECTOR picks processes (a target may be given several times):\n"
	"  comm=GLOB      the process name (node 24 names its main thread MainThread:\n"
	"                 prefer exe= or cmdline= for node)\n"
	"  exe=GLOB       the executable's path, e.g. exe=*/node\n"
	"  cmdline=REGEX  the arguments joined by spaces (extended regex, unanchored)\n"
	"  cgroup=GLOB    the cgroup v2 path, e.g. cgroup=*kubepods*\n"
	"  unit=NAME      a systemd unit (NAME.service when NAME has no dot)\n"
	"  pid=N          one process\n"
	"  k8s-namespace=GLOB, k8s-pod=GLOB, k8s-container=GLOB\n"
	"                 the Kubernetes namespace, pod or container name of the\n"
	"                 pod's container (from the container runtime's state)\n"
	"NAME becomes the `target` label.\n"
	"\n"
	"Options:\n"
	"  -t, --target NAME=SELECTOR  a target (at least one)\n"
	"  -l, --listen ADDR:PORT  default 127.0.0.1:9477 (this machine only); say\n"
	"                          0.0.0.0:9477 or [::]:9477 to be reachable from others\n"
	"  -i, --interval D        how often bpftrace's figures are added and the\n"
	"                          processes scanned: 10 (seconds, default), 30s, 1m\n"
	"      --web-config FILE   TLS and basic auth, as Prometheus exporters take them\n"
	"      --pid-label         add a pid label (one series per process: mind the\n"
	"                          cardinality)\n"
	"      --set NAME=VALUE    a spec parameter, given to every spec (each must\n"
	"                          declare it: serve one spec per command otherwise)\n"
	"      --bpftrace PATH     the bpftrace to run (default: $BPFSPEC_BPFTRACE, or\n"
	"                          bpftrace from PATH)\n"
	"      --host-run DIR      where the host's /run is seen (default /run): the\n"
	"                          container runtimes' state, for the Kubernetes names\n"
	"  -v, --verbose           say what each scan and child does\n"
	"\n"
	"One bpftrace runs per spec, target and executable (the processes of a target\n"
	"that run one node binary share it).  SIGHUP re-reads the specs; SIGTERM stops.\n"
	"Metrics: docs/serve-metrics.md; set-up: docs/serve.md, docs/fleet.md.\n"
	"\n"
	"Examples:\n"
	"  bpfspec serve libuv-phases --target api=cmdline='server\\.js'\n"
	"  bpfspec serve libuv-phases loop-utilization --target node='exe=*/node' \\\n"
	"      --listen 0.0.0.0:9477 --interval 15s\n"
	"  bpfspec serve libuv-phases --target shop=k8s-namespace=shop --host-run /host/run\n";

enum { OPT_WEB_CONFIG = 256, OPT_PID_LABEL, OPT_SET, OPT_BPFTRACE, OPT_HOST_RUN };

static int add_target(serve_config *cfg, const char *arg)
{
	char err[512];
	if (cfg->n_targets == SERVE_MAX_TARGETS)
		return usage_error("more than %d targets", SERVE_MAX_TARGETS);
	discover_target *t = &cfg->targets[cfg->n_targets];
	if (discover_target_parse(arg, t, err, sizeof err) < 0) {
		char *clean = safe_text(err);
		int rc = usage_error("%s", clean ? clean : "bad --target");
		free(clean);
		return rc;
	}
	for (size_t i = 0; i < cfg->n_targets; i++)
		if (strcmp(cfg->targets[i].name, t->name) == 0) {
			discover_target_free(t);
			return usage_error("target '%s' is given twice: give each target its "
					   "own name", cfg->targets[i].name);
		}
	cfg->n_targets++;
	return EXIT_OK;
}

/* --host-run DIR: a directory (read-only will do). */
static int check_host_run(const char *dir)
{
	struct stat st;
	int err = stat(dir, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
	if (!err)
		return EXIT_OK;
	char *clean = safe_text(dir);
	int rc = usage_error("--host-run '%s': %s; give the directory where the host's /run is "
			     "mounted, e.g. --host-run /host/run (docs/fleet.md)",
			     clean ? clean : "?", strerror(err));
	free(clean);
	return rc;
}

int serve_cli_parse(int argc, char **argv, serve_config *cfg)
{
	static const struct option longs[] = {
		{ "target", required_argument, NULL, 't' },
		{ "listen", required_argument, NULL, 'l' },
		{ "interval", required_argument, NULL, 'i' },
		{ "web-config", required_argument, NULL, OPT_WEB_CONFIG },
		{ "pid-label", no_argument, NULL, OPT_PID_LABEL },
		{ "set", required_argument, NULL, OPT_SET },
		{ "bpftrace", required_argument, NULL, OPT_BPFTRACE },
		{ "host-run", required_argument, NULL, OPT_HOST_RUN },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	memset(cfg, 0, sizeof *cfg);
	cfg->interval_ns = SERVE_DEFAULT_INTERVAL_NS;
	cfg->proc_root = "/proc";
	cfg->host_run = "/run";
	for (size_t i = 0; i < SERVE_MAX_SPECS; i++)
		cfg->spec_fds[i] = -1;
	optind = 1;
	opterr = 0;
	int c, rc;
	while ((c = getopt_long(argc, argv, ":t:l:i:vh", longs, NULL)) != -1) {
		switch (c) {
		case 't':
			if ((rc = add_target(cfg, optarg)) != EXIT_OK)
				return rc;
			break;
		case 'l':
			cfg->listen = optarg;
			break;
		case 'i':
			if (spec_parse_option_duration(optarg, &cfg->interval_ns) < 0)
				return usage_error("invalid interval '%s': use e.g. 10, 30s, 1m",
						   optarg);
			if (cfg->interval_ns < SERVE_MIN_INTERVAL_NS)
				return usage_error("interval '%s' is under 1 s: bpftrace's "
						   "figures come once an interval", optarg);
			break;
		case OPT_WEB_CONFIG:
			cfg->web_config = optarg;
			break;
		case OPT_PID_LABEL:
			cfg->pid_label = true;
			break;
		case OPT_SET:
			if (cfg->n_sets == SERVE_MAX_SETS)
				return usage_error("more than %d --set", SERVE_MAX_SETS);
			cfg->sets[cfg->n_sets++] = optarg;
			break;
		case OPT_BPFTRACE:
			cfg->bpftrace = optarg;
			break;
		case OPT_HOST_RUN:
			if ((rc = check_host_run(optarg)) != EXIT_OK)
				return rc;
			cfg->host_run = optarg;
			break;
		case 'v':
			cfg->verbose = true;
			break;
		case 'h':
			fputs(serve_help_text, stdout);
			return EXIT_DONE;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	for (int i = optind; i < argc; i++) {
		if (cfg->n_specs == SERVE_MAX_SPECS)
			return usage_error("more than %d specs", SERVE_MAX_SPECS);
		cfg->specs[cfg->n_specs++] = argv[i];
	}
	if (cfg->n_specs == 0)
		return usage_error("%s", "serve needs at least one SPEC (`bpfspec list` "
				   "names the bundled ones)");
	if (cfg->n_targets == 0)
		return usage_error("%s", "serve needs at least one --target NAME=SELECTOR, "
				   "e.g. --target api=cmdline='server\\.js'");
	return EXIT_OK;
}

void serve_config_free(serve_config *cfg)
{
	for (size_t i = 0; i < cfg->n_targets; i++)
		discover_target_free(&cfg->targets[i]);
	cfg->n_targets = 0;
}
