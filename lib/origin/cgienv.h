/* cgienv.h - the CGI environment (RFC 3875 4.1) of one request: the
 * server's, the request's and the script's variables, then the user's
 * --env settings, which win. Shared by the CGI and FastCGI origins; not
 * for use outside lib/origin*, cgi.c and fcgi.c.
 */
#ifndef CGISNAP_CGIENV_H
#define CGISNAP_CGIENV_H

#include "base/buf.h"
#include "origin/origin_impl.h"

/* The CGI environment (RFC 3875) for one request, "NAME=VALUE" strings in
 * env (appended to; the caller clears it). */
void origin_cgi_env(const struct origin *o, const char *method, const char *target,
		    const char *remote_addr, const struct origin_script *s, struct strlist *env);

/* Set NAME to VALUE in an environment list, replacing an earlier entry. */
void origin_env_set(struct strlist *env, const char *name, const char *value);

#endif
