#ifndef SONGBOX_COPUSFILE_SHIM_H
#define SONGBOX_COPUSFILE_SHIM_H
// pkg-config's opusfile puts /usr/include/opus on the include path.
#include <opusfile.h>
#endif
