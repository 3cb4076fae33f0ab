#ifndef SONGBOX_CFLAC_SHIM_H
#define SONGBOX_CFLAC_SHIM_H
// libFLAC's decoder only: native FLAC and FLAC in Ogg (tags are the library's own parsers').
#include <FLAC/stream_decoder.h>
#endif
