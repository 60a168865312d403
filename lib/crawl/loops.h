/* loops.h - spotting pager and calendar loops while a crawl runs.
 *
 * A page linking "?n=N+1" (a pager, a calendar, a cursor) gives the crawl
 * a new URL on every page, for ever. Such URLs share a family - the path
 * and the set of parameter names, "/list?n=…" - and each new one is found
 * one link further from the seeds than the one before. A family is
 * counted one step each time it gets a new URL at a greater depth than
 * its last step; the parameter that changed at every step is the loop's.
 * Links found side by side on one page (an index of 5000 items) share a
 * depth and make one step, so big sites are no loop.
 *
 *     struct loops l;
 *     loops_init(&l, 1000);
 *     char *msg = loops_note(&l, "/list?n=7", 6);  // for each new target
 *     if (msg) log_warn("%s", msg), free(msg);
 *     loops_release(&l);
 *
 * Memory is bounded: LOOPS_FAMILIES families at most, LOOPS_PARAMS
 * parameters each, no values kept (a hash of the last one). Not
 * thread-safe: the crawl calls it under its lock.
 */
#ifndef CGISNAP_LOOPS_H
#define CGISNAP_LOOPS_H

#include "base/hashmap.h"

#define LOOPS_FAMILIES 4096 /* families tracked; later ones are not */
#define LOOPS_PARAMS 8      /* parameters tracked per family (by name order) */

struct loops {
	struct hashmap families; /* "/list?a=…&n=…" -> struct loop_family * */
	long threshold;          /* values of one parameter that make a loop; 0: never */
};

void loops_init(struct loops *l, long threshold);
/* Note a target new to the crawl, found depth links from a seed. A fresh
 * message when this makes a family's parameter reach the threshold (once
 * per family), e.g. "'/list?n=…' has 1000+ distinct values of 'n' (a
 * pager or calendar loop? use --exclude or --max-pages)"; NULL otherwise. */
char *loops_note(struct loops *l, const char *target, long depth);
/* Free everything; l is empty and may be initialised again. */
void loops_release(struct loops *l);

#endif
