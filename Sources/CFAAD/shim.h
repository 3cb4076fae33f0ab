#ifndef SONGBOX_CFAAD_SHIM_H
#define SONGBOX_CFAAD_SHIM_H
// libfaad2's decoder (AAC-LC, HE-AAC v1 and v2). Debian's libfaad-dev ships no pkg-config file:
// the header is in /usr/include and the library on the default path.
#include <neaacdec.h>
#endif
