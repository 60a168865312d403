/* clock.h - the one millisecond clock: deadlines, batch windows, render
 * times. Monotonic, so a change of the wall clock never fires or stalls
 * a timer. */
#ifndef CGISNAP_CLOCK_H
#define CGISNAP_CLOCK_H

/* Milliseconds on CLOCK_MONOTONIC (from an arbitrary start). */
long long now_ms(void);
/* The same on CLOCK_MONOTONIC_COARSE: cheaper, a few ms behind; for
 * per-request reads whose deadlines are in seconds. */
long long now_ms_coarse(void);

#endif
