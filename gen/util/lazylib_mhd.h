/* lazylib_mhd — the table of libmicrohttpd functions lazylib_mhd_load
 * returns (lazylib.h), typed from <microhttpd.h>. */
#ifndef BPFSPEC_LAZYLIB_MHD_H
#define BPFSPEC_LAZYLIB_MHD_H

#include <microhttpd.h>


/* The libmicrohttpd functions serve_http calls. */
struct lazylib_mhd {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_is_feature_supported) *is_feature_supported;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
	__typeof__(MHD_lookup_connection_value) *lookup_connection_value;
	__typeof__(MHD_basic_auth_get_username_password) *basic_auth_get_username_password;
	__typeof__(MHD_queue_basic_auth_fail_response) *queue_basic_auth_fail_response;
	__typeof__(MHD_free) *free;
};

#endif
