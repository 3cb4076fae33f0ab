#!/usr/bin/env python3
"""Block writes a process made to files, counted in 4 KB pages, from an strace log.

    bench/daemon/blocks.py LOG START END

LOG comes from `strace -f -qq -ttt -y -s 0 -e trace=...` (bench/daemon-run starts each daemon
under it for the playing window). START and END are Unix times: only calls between them count.

Why not only /proc/PID/io write_bytes: the kernel counts a whole page-cache folio each time one
byte of it is dirtied, and since Linux 6.16 ext4 keeps files in large folios (up to megabytes),
so on a new kernel a 5 KB append can count as 1 MB. This counts what a 4 KB-page kernel (a
Raspberry Pi's) would: each 4 KB page of a file dirtied once until that file is synced, or
until the kernel would write it back anyway (30 s, dirty_expire_centisecs' default).

SQLite in WAL mode also updates the WAL index (the -shm file) through mmap, which strace does
not see: each sync of a -wal file is counted with one more page for it (its header page).

Prints: pages bytes syncs, then one line per file.
"""
import collections
import re
import sys

WRITEBACK = 30.0
PAGE = 4096

call = re.compile(r'^(\d+)\s+(\d+\.\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+)(?:<([^>]*)>)?')
fd_path = re.compile(r'^(\d+)<([^>]*)>')


def is_file(path):
    return path.startswith('/') and not path.startswith(('/dev/', '/proc/', '/sys/')) and ':[' not in path


def main(log, start, end):
    positions = {}                    # (pid, fd) -> offset of the next write()
    dirty = collections.defaultdict(dict)   # path -> {page: time first dirtied}
    pages = collections.Counter()     # path -> pages written
    syncs = collections.Counter()
    for line in open(log, errors='replace'):
        m = call.match(line)
        if not m:
            continue
        pid, when, name, args, result, result_path = m.groups()
        when, result = float(when), int(result)
        target = fd_path.match(args)
        if name in ('openat', 'open', 'creat'):
            if result >= 0 and result_path:
                positions[(pid, result)] = 0
            continue
        if not target or not is_file(target.group(2)):
            continue
        fd, path = int(target.group(1)), target.group(2)
        # Pages the kernel has written back since they were dirtied are clean again.
        for page, since in list(dirty[path].items()):
            if when - since >= WRITEBACK:
                del dirty[path][page]
        if name in ('fsync', 'fdatasync'):
            if start <= when <= end:
                syncs[path] += 1
                if path.endswith('-wal'):
                    pages[path[:-4] + '-shm'] += 1
            dirty[path].clear()
            continue
        if result <= 0:
            continue
        if name in ('pwrite64', 'pwritev', 'pwritev2'):
            # The offset is the last argument (pwritev2: before the flags).
            offset = int(args.split(',')[-2 if name == 'pwritev2' else -1].strip())
        elif name in ('write', 'writev'):
            offset = positions.get((pid, fd), 0)
            positions[(pid, fd)] = offset + result
        else:
            continue
        for page in range(offset // PAGE, (offset + result - 1) // PAGE + 1):
            if page not in dirty[path]:
                dirty[path][page] = when
                if start <= when <= end:
                    pages[path] += 1
    total = sum(pages.values())
    print(total, total * PAGE, sum(syncs.values()))
    for path, count in pages.most_common():
        print(f'{path} {count * PAGE} B in {count} pages, {syncs.get(path, 0)} syncs')


if __name__ == '__main__':
    main(sys.argv[1], float(sys.argv[2]), float(sys.argv[3]))
