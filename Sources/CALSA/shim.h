#ifndef SONGBOX_CALSA_SHIM_H
#define SONGBOX_CALSA_SHIM_H
#include <alsa/asoundlib.h>

/* alsa-lib reports failures on stderr ("ALSA lib pcm.c:...: Unknown PCM x") as well as through
 * return codes. songbox turns the codes into its own messages, so the library's lines are noise.
 * The handler type is variadic, which Swift cannot implement: the no-op lives here. */
static inline void songbox_alsa_ignore_error(const char *file, int line, const char *function,
                                             int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

/* Installs the no-op handler for the whole process. */
static inline void songbox_alsa_silence_errors(void) {
    snd_lib_error_set_handler(songbox_alsa_ignore_error);
}

#endif
