/* libFuzzer harness for k8s_names.c's parser of a container runtime's
 * config.json, whose annotations whoever starts a container can choose:
 * the input bytes are such a file, parsed as containerd's and as CRI-O's.
 * Checks: the status is one the parser may give; each name is
 * NUL-terminated within K8S_NAME_MAX bytes and valid UTF-8; a malformed
 * file leaves every name empty and says why; a file with no name says
 * none.
 * Build and run: tests/fuzz/run.sh [SECONDS] k8s. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/k8s.h"
#include "util/safe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_name(const char *name)
{
	size_t len = strnlen(name, K8S_NAME_MAX + 1);
	if (len > K8S_NAME_MAX || !safe_utf8_valid(name, len))
		abort();
}

static void check(const uint8_t *data, size_t size, k8s_runtime rt)
{
	k8s_names n;
	char why[K8S_WHY_MAX];
	why[0] = '\0';
	k8s_status st = k8s_names_parse((const char *)data, size, rt, &n, why, sizeof why);
	if (st != K8S_FOUND && st != K8S_NO_NAMES && st != K8S_MALFORMED)
		abort();
	check_name(n.namespace_name);
	check_name(n.pod_name);
	check_name(n.container_name);
	bool any = n.namespace_name[0] || n.pod_name[0] || n.container_name[0];
	if ((st == K8S_FOUND) != any || (st == K8S_MALFORMED && !why[0]) ||
	    strnlen(why, sizeof why) == sizeof why)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check(data, size, K8S_RUNTIME_CONTAINERD);
	check(data, size, K8S_RUNTIME_CRIO);
	return 0;
}
