/* serve_http_listen — the listen address: parsed, bound, and every way
 * binding fails said as a sentence naming the address (serve_http.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve/serve_http_internal.h"

/* The port after "HOST:" (P points past the colon).  -1 when not a
 * number in 0..65535. */
static long parse_port(const char *p)
{
	long v = 0;

	if (!*p)
		return -1;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
		if (v > 65535)
			return -1;
	}
	return v;
}

static void format_addr(const struct sockaddr_storage *ss, char *out, size_t outlen)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		snprintf(out, outlen, "[%s]:%u", host, ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		snprintf(out, outlen, "%s:%u", host, ntohs(s4->sin_port));
	}
}

int serve_http_parse_listen(const char *text, serve_http_addr *out, char *err, size_t errlen)
{
	const char *colon;
	char host[INET6_ADDRSTRLEN + 2];
	size_t hlen;
	long port;

	memset(out, 0, sizeof(*out));
	if (!text)
		text = SERVE_HTTP_DEFAULT_LISTEN;
	colon = strrchr(text, ':');
	hlen = strlen(text);
	if ((!colon && strspn(text, "0123456789") != hlen) ||
	    (text[0] == '[' && hlen && text[hlen - 1] == ']')) {
		snprintf(err, errlen,
			 "listen address '%.64s' has no port: add one, as in 127.0.0.1:%d",
			 text, SERVE_HTTP_DEFAULT_PORT);
		return -1;
	}
	if (!colon || colon == text) {
		snprintf(err, errlen,
			 "listen address '%.64s' has no host: give 127.0.0.1:PORT for this machine "
			 "only, or 0.0.0.0:PORT or [::]:PORT to listen on every interface",
			 text);
		return -1;
	}
	port = parse_port(colon + 1);
	if (port < 0) {
		snprintf(err, errlen,
			 "listen address '%.64s' has no valid port after its last ':' "
			 "(a number from 0 to 65535, as in 127.0.0.1:%d)",
			 text, SERVE_HTTP_DEFAULT_PORT);
		return -1;
	}
	hlen = (size_t)(colon - text);
	if (text[0] == '[') {
		if (hlen < 3 || text[hlen - 1] != ']' || hlen - 2 >= sizeof(host))
			goto bad_host;
		memcpy(host, text + 1, hlen - 2);
		host[hlen - 2] = '\0';
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&out->sa;
		if (inet_pton(AF_INET6, host, &s6->sin6_addr) != 1)
			goto bad_host;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		out->len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&out->sa;
		if (hlen >= sizeof(host))
			goto bad_host;
		memcpy(host, text, hlen);
		host[hlen] = '\0';
		if (strcmp(host, "localhost") == 0)
			strcpy(host, "127.0.0.1");
		if (inet_pton(AF_INET, host, &s4->sin_addr) != 1)
			goto bad_host;
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		out->len = sizeof(*s4);
	}
	format_addr(&out->sa, out->text, sizeof(out->text));
	return 0;

bad_host:
	snprintf(err, errlen,
		 "listen address '%.64s': the host is not a numeric IPv4 address or an IPv6 "
		 "address in brackets; write it as 127.0.0.1:PORT, 0.0.0.0:PORT, [::1]:PORT "
		 "or [::]:PORT (host names other than localhost are not resolved)",
		 text);
	return -1;
}

static void bind_error(const serve_http_addr *addr, int e, char *err, size_t errlen)
{
	switch (e) {
	case EADDRINUSE:
		snprintf(err, errlen,
			 "cannot listen on %s: the address is already in use (another bpfspec "
			 "serve or another exporter?); stop it or choose another port with --listen",
			 addr->text);
		break;
	case EACCES:
	case EPERM:
		snprintf(err, errlen,
			 "cannot listen on %s: permission denied (ports below 1024 need "
			 "CAP_NET_BIND_SERVICE); choose a port of 1024 or more",
			 addr->text);
		break;
	case EADDRNOTAVAIL:
		snprintf(err, errlen,
			 "cannot listen on %s: no interface of this machine has that address; "
			 "use 127.0.0.1, 0.0.0.0 or an address that `ip addr` lists",
			 addr->text);
		break;
	case EAFNOSUPPORT:
		snprintf(err, errlen,
			 "cannot listen on %s: IPv6 is not available on this machine; "
			 "use an IPv4 address such as 127.0.0.1",
			 addr->text);
		break;
	default:
		snprintf(err, errlen, "cannot listen on %s: %s", addr->text, strerror(e));
		break;
	}
}

int sh_listen_socket(const serve_http_addr *addr, char *err, size_t errlen)
{
	int fd, on = 1, off = 0, e;

	fd = socket(addr->sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		bind_error(addr, errno, err, errlen);
		return -1;
	}
	/* SO_REUSEADDR: a restarted serve binds again at once, past the old
	 * connections in TIME_WAIT; a listening socket still refuses. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) < 0)
		goto fail;
	if (addr->sa.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&addr->sa;
		/* [::] means every interface, IPv4 too, whatever the sysctl
		 * net.ipv6.bindv6only says; a specific address is v6 only. */
		int *v = IN6_IS_ADDR_UNSPECIFIED(&s6->sin6_addr) ? &off : &on;
		if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, v, sizeof(*v)) < 0)
			goto fail;
	}
	if (bind(fd, (const struct sockaddr *)&addr->sa, addr->len) < 0 || listen(fd, 64) < 0)
		goto fail;
	return fd;

fail:
	e = errno;
	close(fd);
	bind_error(addr, e, err, errlen);
	return -1;
}

int sh_socket_address(int fd, char *out, size_t outlen)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	memset(&ss, 0, sizeof(ss));
	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return -1;
	format_addr(&ss, out, outlen);
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}
