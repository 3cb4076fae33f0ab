"""Reads what bench/analysis-run measured and prints its results as Markdown.

usage: report.py WORK_DIR
WORK_DIR holds songbox-tempo.json (`songbox ls --json` of the tempo set), songbox-library.json,
<tool>-<set>.jsonl (references.py output) and speed.tsv (tool, file set, audio seconds, wall seconds).
"""
import json, os, re, sys

work = sys.argv[1]


def load_jsonl(name):
    path = os.path.join(work, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return {os.path.basename(r['path']): r for r in map(json.loads, filter(str.strip, f))}


def load_songbox(name):
    with open(os.path.join(work, name)) as f:
        return {os.path.basename(t['path']): t for t in json.load(f)}


def verdict(found, truth):
    if found is None:
        return 'none'
    for factor, name in ((1, 'right'), (2, 'double'), (0.5, 'half')):
        if abs(found - truth * factor) / (truth * factor) < 0.02:
            return name
    return 'wrong'


# ------------------------------------------------------------------ speed
print('### Speed (times real time on one core; decoding included)\n')
print('| tool | 10-minute file | example library |')
print('|---|---|---|')
speeds = {}
with open(os.path.join(work, 'speed.tsv')) as f:
    for line in f:
        tool, fileset, audio, wall = line.split('\t')
        speeds.setdefault(tool, {}).setdefault(fileset, []).append(float(audio) / float(wall))
for tool, sets in speeds.items():
    cells = [f"{max(sets[s]):.0f}x" if s in sets else 'n/a' for s in ('long', 'library')]
    print(f'| {tool} | ' + ' | '.join(cells) + ' |')
print()

# ------------------------------------------------------------------ tempo
songbox = load_songbox('songbox-tempo.json')
tools = {'songbox': {k: {'tempo': v['tempo']} for k, v in songbox.items()}}
for tool in ('essentia', 'librosa'):
    rows = load_jsonl(f'{tool}-tempo.jsonl')
    if rows is not None:
        tools[tool] = rows
kinds = ['clicks', 'quiet', 'noisy', 'drums', 'syncopated']
print('### Tempo of generated signals (60-180 BPM, 9 tempos a kind): right within 2 % / half or double / wrong\n')
print('| tool | ' + ' | '.join(kinds) + ' | all |')
print('|---|' + '---|' * (len(kinds) + 1))
misses = []
for tool, rows in tools.items():
    cells, total = [], {'right': 0, 'double': 0, 'half': 0, 'wrong': 0, 'none': 0}
    for kind in kinds:
        counts = {'right': 0, 'double': 0, 'half': 0, 'wrong': 0, 'none': 0}
        for name, row in sorted(rows.items()):
            m = re.match(r'(\w+)-(\d+)\.mp3$', name)
            if not m or m.group(1) != kind:
                continue
            v = verdict(row.get('tempo'), int(m.group(2)))
            counts[v] += 1
            total[v] += 1
            if v != 'right':
                misses.append(f'{tool} {name}: {row.get("tempo")}')
        cells.append(f"{counts['right']} / {counts['half'] + counts['double']} / {counts['wrong'] + counts['none']}")
    cells.append(f"{total['right']} / {total['half'] + total['double']} / {total['wrong'] + total['none']}")
    print(f'| {tool} | ' + ' | '.join(cells) + ' |')
print()
if misses:
    print('Misses: ' + '; '.join(misses) + '\n')

# ------------------------------------------------------------------ loudness
print('### Integrated loudness against pyloudnorm (LU)\n')
reference = load_jsonl('pyloudnorm-tempo.jsonl') or {}
reference.update(load_jsonl('pyloudnorm-library.jsonl') or {})
mine = dict(songbox)
mine.update(load_songbox('songbox-library.json'))
diffs = []
for name, row in reference.items():
    ours = mine.get(name, {}).get('loudness')
    if ours is not None and row['loudness'] is not None and row['loudness'] > -70:
        diffs.append((abs(ours - row['loudness']), name, ours, row['loudness']))
diffs.sort(reverse=True)
if diffs:
    within = sum(1 for d in diffs if d[0] <= 0.5)
    mean = sum(d[0] for d in diffs) / len(diffs)
    print(f'{within} of {len(diffs)} files within 0.5 LU; mean difference {mean:.3f} LU, largest {diffs[0][0]:.3f} LU '
          f'({diffs[0][1]}: songbox {diffs[0][2]:.2f}, pyloudnorm {diffs[0][3]:.2f}).\n')
essentia = load_jsonl('essentia-tempo.jsonl')
if essentia:
    ed = [abs(mine[n]['loudness'] - r['loudness']) for n, r in essentia.items() if mine.get(n, {}).get('loudness') is not None]
    if ed:
        print(f'Against Essentia\'s LoudnessEBUR128 on the same files: mean {sum(ed) / len(ed):.3f} LU, largest {max(ed):.3f} LU.\n')
