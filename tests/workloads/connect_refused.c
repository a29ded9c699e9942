/* connect_refused — makes exactly two blocking connect() calls that fail
 * with ECONNREFUSED: one to 127.0.0.1:PORT4, one to [::1]:PORT6, each port
 * closed (bound to port 0 to get a free one, then closed).  Writes
 * "port4 N" and "port6 N" lines to OUT first, and exits 0 if both
 * connects were refused (1 otherwise).  Its calls: socket() 4 times
 * (2 to find ports, 2 to connect), connect() twice.
 * Usage: connect_refused OUT */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A free port on the loopback address of family AF: bind to port 0, read
 * the port the kernel chose, close.  Nothing listens on it afterwards. */
static int free_port(int af)
{
	struct sockaddr_storage ss;
	socklen_t len;
	memset(&ss, 0, sizeof(ss));
	if (af == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		len = sizeof(*a);
	}
	int fd = socket(af, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) || getsockname(fd, (struct sockaddr *)&ss, &len)) {
		perror("free_port");
		return -1;
	}
	close(fd);
	return ntohs(af == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
				   : ((struct sockaddr_in6 *)&ss)->sin6_port);
}

/* Connects to PORT on the loopback address of family AF; returns errno
 * (0 if the connect succeeded). */
static int try_connect(int af, int port)
{
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(port),
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	int fd = socket(af, SOCK_STREAM, 0);
	if (fd < 0)
		return errno;
	int r = af == AF_INET ? connect(fd, (struct sockaddr *)&a4, sizeof(a4))
			      : connect(fd, (struct sockaddr *)&a6, sizeof(a6));
	int e = r ? errno : 0;
	close(fd);
	return e;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: connect_refused OUT\n");
		return 2;
	}
	int p4 = free_port(AF_INET), p6 = free_port(AF_INET6);
	if (p4 < 0 || p6 < 0)
		return 1;
	FILE *f = fopen(argv[1], "w");
	if (!f || fprintf(f, "port4 %d\nport6 %d\n", p4, p6) < 0 || fclose(f)) {
		perror(argv[1]);
		return 1;
	}
	int e4 = try_connect(AF_INET, p4), e6 = try_connect(AF_INET6, p6);
	if (e4 != ECONNREFUSED || e6 != ECONNREFUSED) {
		fprintf(stderr, "connect_refused: 127.0.0.1:%d: %s; [::1]:%d: %s\n",
			p4, strerror(e4), p6, strerror(e6));
		return 1;
	}
	return 0;
}
