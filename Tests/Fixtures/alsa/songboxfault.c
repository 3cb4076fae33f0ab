/*
 * A test ALSA PCM (an ioplug external plugin) that misbehaves as a real card can: it reports
 * one underrun (EPIPE) after `xrun_at` frames and one suspend (ESTRPIPE) after `suspend_at`
 * frames; given `gone`, it vanishes (ENODEV) after `vanish_at` frames, once, creating the file
 * `gone`, and cannot be opened while that file exists (the test deletes it: plugged back in). It appends every frame it takes to `file` (raw), so a test can check that
 * songbox recovered without losing or repeating a sample, and each fault it caused to
 * `<file>.events`. Built by the tests with cc; loaded through an ALSA config:
 * pcm_type.songboxfault { lib "<path>.so" } and
 * pcm.fault { type songboxfault; file "<capture>"; xrun_at N; suspend_at M; gone "<marker>"; vanish_at K }.
 */
#include <alsa/asoundlib.h>
#include <alsa/pcm_external.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    snd_pcm_ioplug_t io;
    FILE *out, *events;
    const char *gone;
    snd_pcm_uframes_t hw_ptr;
    long written, xrun_at, suspend_at, vanish_at;
    int xrun_done, suspend_done, may_vanish;
} fault_t;

static void note(fault_t *f, const char *event) {
    fprintf(f->events, "%s at %ld\n", event, f->written);
    fflush(f->events);
}

static int exists(const char *path) {
    return path != NULL && access(path, F_OK) == 0;
}

/* `<gone>.done`: the device has vanished once already (it survives the plugin instance). */
static void done_path(const fault_t *f, char *path, size_t size) {
    snprintf(path, size, "%s.done", f->gone);
}

static int fault_start(snd_pcm_ioplug_t *io) { (void)io; return 0; }
static int fault_stop(snd_pcm_ioplug_t *io) { (void)io; return 0; }

static int fault_prepare(snd_pcm_ioplug_t *io) {
    ((fault_t *)io->private_data)->hw_ptr = 0;
    return 0;
}

static snd_pcm_sframes_t fault_pointer(snd_pcm_ioplug_t *io) {
    fault_t *f = io->private_data;
    if (!f->xrun_done && f->written >= f->xrun_at) {
        f->xrun_done = 1;
        note(f, "underrun");
        return -EPIPE;  /* the card ran dry */
    }
    return (snd_pcm_sframes_t)f->hw_ptr;  /* everything written so far was played */
}

static snd_pcm_sframes_t fault_transfer(snd_pcm_ioplug_t *io, const snd_pcm_channel_area_t *areas,
                                        snd_pcm_uframes_t offset, snd_pcm_uframes_t size) {
    fault_t *f = io->private_data;
    if (!f->suspend_done && f->written >= f->suspend_at) {
        f->suspend_done = 1;
        note(f, "suspend");
        snd_pcm_ioplug_set_state(io, SND_PCM_STATE_SUSPENDED);  /* the machine slept */
        return -ESTRPIPE;
    }
    if (f->may_vanish && f->written >= f->vanish_at) {
        char done[4096];
        done_path(f, done, sizeof done);
        fclose(fopen(f->gone, "w"));
        fclose(fopen(done, "w"));
        f->may_vanish = 0;
        note(f, "vanished");
        snd_pcm_ioplug_set_state(io, SND_PCM_STATE_DISCONNECTED);  /* unplugged */
        return -ENODEV;
    }
    const char *frames = (const char *)areas[0].addr + (areas[0].first + areas[0].step * offset) / 8;
    fwrite(frames, 4, size, f->out);
    fflush(f->out);
    f->written += (long)size;
    f->hw_ptr = (f->hw_ptr + size) % io->buffer_size;
    return (snd_pcm_sframes_t)size;
}

/* Wakes as a card does after a suspend: ready for audio again (snd_pcm_resume). */
static int fault_resume(snd_pcm_ioplug_t *io) {
    return snd_pcm_ioplug_set_state(io, SND_PCM_STATE_PREPARED);
}

static int fault_close(snd_pcm_ioplug_t *io) {
    fault_t *f = io->private_data;
    fclose(f->out);
    fclose(f->events);
    free((void *)f->gone);
    free(f);
    return 0;
}

static const snd_pcm_ioplug_callback_t callbacks = {
    .start = fault_start, .stop = fault_stop, .pointer = fault_pointer,
    .transfer = fault_transfer, .close = fault_close, .prepare = fault_prepare, .resume = fault_resume,
};

SND_PCM_PLUGIN_DEFINE_FUNC(songboxfault) {
    (void)root;
    const char *file = NULL, *gone = NULL;
    long xrun_at = 1L << 40, suspend_at = 1L << 40, vanish_at = 1L << 40;
    snd_config_iterator_t i, next;
    snd_config_for_each(i, next, conf) {
        snd_config_t *n = snd_config_iterator_entry(i);
        const char *id;
        if (snd_config_get_id(n, &id) < 0) continue;
        if (!strcmp(id, "comment") || !strcmp(id, "type") || !strcmp(id, "hint")) continue;
        if (!strcmp(id, "file")) { snd_config_get_string(n, &file); continue; }
        if (!strcmp(id, "xrun_at")) { snd_config_get_integer(n, &xrun_at); continue; }
        if (!strcmp(id, "suspend_at")) { snd_config_get_integer(n, &suspend_at); continue; }
        if (!strcmp(id, "vanish_at")) { snd_config_get_integer(n, &vanish_at); continue; }
        if (!strcmp(id, "gone")) { snd_config_get_string(n, &gone); continue; }
        return -EINVAL;
    }
    if (file == NULL || stream != SND_PCM_STREAM_PLAYBACK) return -EINVAL;
    fault_t *f = calloc(1, sizeof *f);
    if (f == NULL) return -ENOMEM;
    if (exists(gone)) { free(f); return -ENODEV; }  /* still unplugged */
    f->gone = gone ? strdup(gone) : NULL;  /* the config is freed once the PCM is open */
    if (gone != NULL) {
        char done[4096];
        done_path(f, done, sizeof done);
        f->may_vanish = !exists(done);
    }
    char events[4096];
    snprintf(events, sizeof events, "%s.events", file);
    f->out = fopen(file, "ab");
    f->events = fopen(events, "ab");
    if (f->out == NULL || f->events == NULL) { free((void *)f->gone); free(f); return -EIO; }
    f->xrun_at = xrun_at;
    f->suspend_at = suspend_at;
    f->vanish_at = vanish_at;
    f->io.version = SND_PCM_IOPLUG_VERSION;
    f->io.name = "songbox fault injector";
    f->io.callback = &callbacks;
    f->io.private_data = f;
    int err = snd_pcm_ioplug_create(&f->io, name, stream, mode);
    if (err < 0) { fclose(f->out); fclose(f->events); free((void *)f->gone); free(f); return err; }
    static const unsigned int access[] = { SND_PCM_ACCESS_RW_INTERLEAVED };
    static const unsigned int formats[] = { SND_PCM_FORMAT_S16_LE };
    snd_pcm_ioplug_set_param_list(&f->io, SND_PCM_IOPLUG_HW_ACCESS, 1, access);
    snd_pcm_ioplug_set_param_list(&f->io, SND_PCM_IOPLUG_HW_FORMAT, 1, formats);
    snd_pcm_ioplug_set_param_minmax(&f->io, SND_PCM_IOPLUG_HW_CHANNELS, 2, 2);
    snd_pcm_ioplug_set_param_minmax(&f->io, SND_PCM_IOPLUG_HW_RATE, 8000, 192000);
    snd_pcm_ioplug_set_param_minmax(&f->io, SND_PCM_IOPLUG_HW_BUFFER_BYTES, 4096, 4 * 1024 * 1024);
    snd_pcm_ioplug_set_param_minmax(&f->io, SND_PCM_IOPLUG_HW_PERIODS, 2, 64);
    *pcmp = f->io.pcm;
    return 0;
}

SND_PCM_PLUGIN_SYMBOL(songboxfault);
