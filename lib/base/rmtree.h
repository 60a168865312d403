/* rmtree.h - removing a directory and everything below it.
 *
 * Links are removed, never followed: a tree holding a link to elsewhere
 * loses the link, not what it points at. What cannot be removed stays;
 * a caller to whom that matters checks that the path is gone.
 *
 *     rmtree(o->php_session_dir);
 */
#ifndef CGISNAP_RMTREE_H
#define CGISNAP_RMTREE_H

/* Remove path and everything under it, deepest first. */
void rmtree(const char *path);

#endif
