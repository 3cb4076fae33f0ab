#ifndef SONGBOX_CALSA_SHIM_H
#define SONGBOX_CALSA_SHIM_H
#include <alsa/asoundlib.h>
#endif
