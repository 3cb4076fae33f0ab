#ifndef SONGBOX_COGGCODECS_SHIM_H
#define SONGBOX_COGGCODECS_SHIM_H
// The codecs below libvorbisfile and libopusfile, for streams fed as they arrive: libogg's
// page and packet assembly, libvorbis's synthesis and libopus's multistream decoder.
#include <ogg/ogg.h>
#include <vorbis/codec.h>
#include <opus/opus_multistream.h>
#endif
