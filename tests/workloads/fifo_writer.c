/* fifo_writer — the other end of tests/workloads/fifo_blocker.js's FIFO:
 * opens FIFO for writing (which waits for a reader), sleeps DELAY_MS,
 * writes one line and closes it, again and again, so that each read of
 * the FIFO blocks for about DELAY_MS.  After each close it pauses 30 ms
 * before opening again: the reader reads until end of file, which it
 * only sees if no writer has the FIFO open by then (the workload's reader
 * comes back every 100 ms).  A reader that goes away before the line is
 * written (the test stops one workload and starts the next) costs that
 * line only: SIGPIPE is ignored and EPIPE skipped, so the next reader
 * still has a writer.  Stops on SIGTERM or when FIFO is gone.
 * Usage: fifo_writer FIFO DELAY_MS */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: fifo_writer FIFO DELAY_MS\n");
		return 2;
	}
	long ms = atol(argv[2]);
	struct timespec delay = { ms / 1000, (ms % 1000) * 1000000L }, pause = { 0, 30000000L };
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		int fd = open(argv[1], O_WRONLY);
		if (fd < 0) {
			perror(argv[1]);
			return 1;
		}
		nanosleep(&delay, NULL);
		if (write(fd, "ok\n", 3) != 3 && errno != EPIPE) {
			perror("write");
			return 1;
		}
		close(fd);
		nanosleep(&pause, NULL);
	}
}
