/* cgienv.c - the CGI environment (RFC 3875) of one request, shared by the
 * CGI and FastCGI origins (cgienv.h). */
#include "origin/cgienv.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

#ifndef CGISNAP_VERSION
#define CGISNAP_VERSION "unknown"
#endif

void origin_env_set(struct strlist *env, const char *name, const char *value)
{
	size_t n = strlen(name);
	char *entry = xasprintf("%s=%s", name, value);
	for (size_t i = 0; i < env->n; i++) {
		if (!strncmp(env->items[i], name, n) && env->items[i][n] == '=') {
			free(env->items[i]);
			env->items[i] = entry;
			return;
		}
	}
	strlist_add_owned(env, entry);
}

void origin_cgi_env(const struct origin *o, const char *method, const char *target,
		    const char *remote_addr, const struct origin_script *s, struct strlist *env)
{
	const char *query = strchr(target, '?');

	origin_env_set(env, "GATEWAY_INTERFACE", "CGI/1.1");
	origin_env_set(env, "SERVER_PROTOCOL", "HTTP/1.1");
	origin_env_set(env, "SERVER_SOFTWARE", "cgisnap/" CGISNAP_VERSION);
	origin_env_set(env, "SERVER_NAME", o->server_name);
	origin_env_set(env, "SERVER_PORT", o->server_port);
	origin_env_set(env, "HTTP_HOST", o->http_host);
	origin_env_set(env, "REQUEST_METHOD", method);
	origin_env_set(env, "REQUEST_URI", target);
	origin_env_set(env, "SCRIPT_NAME", s->script_name);
	origin_env_set(env, "SCRIPT_FILENAME", s->filename);
	if (*s->path_info) {
		origin_env_set(env, "PATH_INFO", s->path_info);
		/* RFC 3875 4.1.6: none when no document root maps PATH_INFO. */
		if (o->root) {
			char *translated = xasprintf("%s%s", o->root, s->path_info);
			origin_env_set(env, "PATH_TRANSLATED", translated);
			free(translated);
		}
	}
	origin_env_set(env, "QUERY_STRING", query ? query + 1 : "");
	origin_env_set(env, "DOCUMENT_ROOT", o->root ? o->root : "");
	origin_env_set(env, "REMOTE_ADDR", remote_addr ? remote_addr : "127.0.0.1");
	origin_env_set(env, "REQUEST_SCHEME", o->https ? "https" : "http");
	origin_env_set(env, "REDIRECT_STATUS", "200");
	if (o->https)
		origin_env_set(env, "HTTPS", "on");
	origin_env_set(env, "HTTP_USER_AGENT", "cgisnap/" CGISNAP_VERSION);
	origin_env_set(env, "PATH", o->path_env);
	for (size_t i = 0; i < o->user_env.n; i++) {
		char *name = xstrdup(o->user_env.items[i]);
		char *eq = strchr(name, '=');
		*eq = '\0';
		origin_env_set(env, name, eq + 1);
		free(name);
	}
}
