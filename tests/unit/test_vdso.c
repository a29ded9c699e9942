/* Unit tests for vdso.c: addresses in a process's vDSO named from its
 * image; anything else left alone. */
#include <check.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "target/vdso.h"

/* PID's [vdso] mapping into *START, *END.  Returns whether it has one. */
static bool find_vdso(long pid, uint64_t *start, uint64_t *end)
{
	char path[64], line[512];
	snprintf(path, sizeof path, "/proc/%ld/maps", pid);
	FILE *f = fopen(path, "r");
	bool found = false;
	while (f && !found && fgets(line, sizeof line, f))
		found = strstr(line, "[vdso]") &&
			sscanf(line, "%" SCNx64 "-%" SCNx64, start, end) == 2;
	if (f)
		fclose(f);
	return found;
}

static void vdso_range(long pid, uint64_t *start, uint64_t *end)
{
	ck_assert_msg(find_vdso(pid, start, end), "pid %ld has no [vdso] mapping", pid);
}

/* A child that execs sleep: a process of its own, natively run even
 * under valgrind (which hides the vDSO from the processes it runs). */
static pid_t sleeping_child(void)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 200; i++) {
		char path[64], exe[256];
		snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
		ssize_t n = readlink(path, exe, sizeof exe - 1);
		uint64_t s, e;
		/* the exe link changes before exec maps the vDSO */
		if (n > 0) {
			exe[n] = '\0';
			if (strstr(exe, "sleep") && find_vdso(pid, &s, &e))
				return pid;
		}
		usleep(10000);
	}
	ck_abort_msg("the child did not exec sleep");
	return -1;
}

static void end_child(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Every address of another process's vDSO: clock_gettime's code is named
 * by its global symbol, each named address by an identifier or "[vdso]"
 * alone (code no exported symbol covers), and nothing next to the
 * mapping. */
START_TEST(test_other_process)
{
	pid_t child = sleeping_child();
	uint64_t start, end;
	vdso_range(child, &start, &end);
	vdso_names *v = vdso_names_new();
	ck_assert_ptr_nonnull(v);
	unsigned clock_gettime = 0, named = 0;
	char out[96];
	for (uint64_t a = start; a < end; a++) {
		if (vdso_name(v, child, a, out, sizeof out) != 1)
			continue;
		if (strcmp(out, "[vdso]") == 0)
			continue;	/* no exported symbol covers it */
		named++;
		ck_assert_msg(strncmp(out, "[vdso] ", 7) == 0 && strlen(out) > 7 &&
				      strspn(out + 7, "abcdefghijklmnopqrstuvwxyz"
						      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") ==
					      strlen(out + 7),
			      "unexpected name '%s'", out);
		clock_gettime += strcmp(out, "[vdso] __vdso_clock_gettime") == 0;
		/* the weak alias is never preferred */
		ck_assert_str_ne(out, "[vdso] clock_gettime");
	}
	ck_assert_uint_gt(clock_gettime, 16);
	ck_assert_uint_gt(named, clock_gettime);
	strcpy(out, "untouched");
	ck_assert_int_eq(vdso_name(v, child, start - 1, out, sizeof out), 0);
	ck_assert_int_eq(vdso_name(v, child, end, out, sizeof out), 0);
	ck_assert_int_eq(vdso_name(v, child, 0, out, sizeof out), 0);
	ck_assert_str_eq(out, "untouched");
	end_child(child);
	vdso_names_free(v);
}
END_TEST

/* Its own vDSO, where the dynamic linker knows the symbol's address (not
 * under valgrind, which hides the vDSO: then the test above alone). */
START_TEST(test_own_process_against_dlsym)
{
	void *h = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
	void *fn = h ? dlsym(h, "__vdso_clock_gettime") : NULL;
	if (!fn)
		return;
	vdso_names *v = vdso_names_new();
	char out[96];
	ck_assert_int_eq(vdso_name(v, (long)getpid(), (uint64_t)(uintptr_t)fn + 4, out, sizeof out), 1);
	ck_assert_str_eq(out, "[vdso] __vdso_clock_gettime");
	/* a short buffer gets a cut, terminated name */
	ck_assert_int_eq(vdso_name(v, (long)getpid(), (uint64_t)(uintptr_t)fn, out, 10), 1);
	ck_assert_str_eq(out, "[vdso] __");
	vdso_names_free(v);
	dlclose(h);
}
END_TEST

/* A process that is gone, or none: nothing named, nothing crashes. */
START_TEST(test_no_process)
{
	pid_t child = sleeping_child();
	uint64_t start, end;
	vdso_range(child, &start, &end);
	end_child(child);
	vdso_names *v = vdso_names_new();
	char out[96] = "untouched";
	ck_assert_int_eq(vdso_name(v, child, start + 16, out, sizeof out), 0);
	ck_assert_int_eq(vdso_name(v, -1, start, out, sizeof out), 0);
	ck_assert_int_eq(vdso_name(NULL, 1, start, out, sizeof out), 0);
	ck_assert_str_eq(out, "untouched");
	vdso_names_free(v);
	vdso_names_free(NULL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("vdso");
	TCase *tc = tcase_create("vdso");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_other_process);
	tcase_add_test(tc, test_own_process_against_dlsym);
	tcase_add_test(tc, test_no_process);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
