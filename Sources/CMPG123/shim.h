#ifndef SONGBOX_CMPG123_SHIM_H
#define SONGBOX_CMPG123_SHIM_H
// 64-bit off_t everywhere songbox runs; use the unsuffixed names.
#define MPG123_NO_LARGENAME 1
#include <mpg123.h>
#endif
