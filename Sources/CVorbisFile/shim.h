#ifndef SONGBOX_CVORBISFILE_SHIM_H
#define SONGBOX_CVORBISFILE_SHIM_H
// The header's static stdio callback tables would be unused (songbox reads through its own
// callbacks) and warn: leave them out.
#define OV_EXCLUDE_STATIC_CALLBACKS 1
#include <vorbis/vorbisfile.h>
#endif
