/* bench/scan-floor.c: the floor of a scan, for bench/run. It walks FOLDER as the scanner does
 * (readdir, sorted names, a stat of each music file, symlinks followed) and reads only the bytes
 * a scan of MP3 files needs at least: each file's first 16 KB (the ID3v2 tag and the first
 * frames) and its last 128 bytes (an ID3v1 tag). No parsing, no database: what is left of a
 * scan's time above this is songbox's own work.
 *
 *   scan-floor FOLDER   ->  prints "FILES BYTES" (files read, bytes read)
 *
 * One thread, as the floor of the work, not of a schedule. bench/run compiles it with gcc -O2.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

enum { head_bytes = 16 * 1024, tail_bytes = 128 };

static long files_read, bytes_read;
static char buffer[head_bytes];

static int is_music(const char *name) {
    static const char *const suffixes[] = {".mp3", ".mp2", ".flac", ".ogg", ".oga", ".opus", ".wav", ".wave",
                                           ".aif", ".aiff", ".aifc", ".m4a", ".m4b", ".mp4"};
    size_t length = strlen(name);
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        size_t n = strlen(suffixes[i]);
        if (length > n && strcasecmp(name + length - n, suffixes[i]) == 0) return 1;
    }
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void read_file(const char *path, off_t size) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t got = read(fd, buffer, head_bytes);
    if (got > 0) bytes_read += got;
    if (size > head_bytes) {
        got = pread(fd, buffer, tail_bytes, size - tail_bytes);
        if (got > 0) bytes_read += got;
    }
    close(fd);
    files_read++;
}

static void walk(const char *folder) {
    DIR *dir = opendir(folder);
    if (!dir) return;
    size_t count = 0, capacity = 64;
    char **names = malloc(capacity * sizeof *names);
    struct dirent *entry;
    while ((entry = readdir(dir))) {
        if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, "..")) continue;
        if (count == capacity) names = realloc(names, (capacity *= 2) * sizeof *names);
        names[count++] = strdup(entry->d_name);
    }
    closedir(dir);
    qsort(names, count, sizeof *names, by_name);
    char path[4096];
    for (size_t i = 0; i < count; i++) {
        snprintf(path, sizeof path, "%s/%s", folder, names[i]);
        struct stat info;
        if (stat(path, &info) == 0) {
            if (S_ISDIR(info.st_mode)) walk(path);
            else if (S_ISREG(info.st_mode) && is_music(names[i])) read_file(path, info.st_size);
        }
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: scan-floor FOLDER\n");
        return 2;
    }
    walk(argv[1]);
    printf("%ld %ld\n", files_read, bytes_read);
    return files_read > 0 ? 0 : 1;
}
