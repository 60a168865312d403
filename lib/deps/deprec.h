/* deprec.h - the old name of recorder.h, kept only for watch/deps.h,
 * which another change owns: once it includes "deps/recorder.h", this
 * file goes. */
#ifndef CGISNAP_DEPREC_H
#define CGISNAP_DEPREC_H

#include "deps/recorder.h"

#endif
