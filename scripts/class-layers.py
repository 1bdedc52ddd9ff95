#!/usr/bin/env python3
"""Check the layers of the class's files (kernel/src/kernel/sched/saakm).

The layer table is the one in the header comment of saakm.c: lines of the
form " *   N  file.c   what it does", where a line without a number belongs
to the layer above it. A file may call functions defined in files of lower
layers, or of its own layer as long as no calls go round in a loop; never in
a higher one. Calls are found by name: a function defined at the top level
of one .c file and called in another. (Calls made through static inline
helpers of the headers are not seen; those helpers live with the layer that
declares them.)

  scripts/class-layers.py [DIR]   prints each file's calls into other files,
                                  then "ok" or the violations (exit 1)
"""
import collections
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, 'kernel/src/kernel/sched/saakm')


def strip_comments(text):
    return re.sub(r'/\*.*?\*/', '', re.sub(r'//[^\n]*', '', text), flags=re.S)


def layer_table(main):
    layers, cur = {}, None
    for line in open(os.path.join(d, main)):
        m = re.match(r'^ \*\s+(\d+)?\s+(saakm\w*\.c)\s', line)
        if m:
            cur = int(m.group(1)) if m.group(1) else cur
            layers[m.group(2)] = cur
    return layers


files = sorted(f for f in os.listdir(d) if f.startswith('saakm') and f.endswith('.c'))
layers = layer_table('saakm.c')
errors = [f'{f}: not in the layer table of saakm.c' for f in files if f not in layers]
errors += [f'{f}: in the layer table of saakm.c, but no such file' for f in layers if f not in files]

src = {f: strip_comments(open(os.path.join(d, f)).read()) for f in files}
defined = {}
for f, text in src.items():
    for m in re.finditer(r'^[A-Za-z_][\w \*]*?\b(\w+)\([^;{)]*\)\s*(?:__\w+\([^)]*\)\s*)?\n\{',
                         text, flags=re.M):
        defined.setdefault(m.group(1), f)

calls = collections.defaultdict(lambda: collections.defaultdict(set))
for f, text in src.items():
    for name, owner in defined.items():
        if owner != f and re.search(r'(?<![\w.>])' + name + r'\s*\(', text):
            calls[f][owner].add(name)

for f in files:
    for g, names in sorted(calls[f].items()):
        print(f'{f} (layer {layers.get(f)}) -> {g} (layer {layers.get(g)}): {" ".join(sorted(names))}')
        if f in layers and g in layers and layers[g] > layers[f]:
            errors.append(f'{f} calls up into {g}: {" ".join(sorted(names))}')


def reaches(a, b, seen):
    for n in calls[a]:
        if n == b or (n not in seen and (seen.add(n) or reaches(n, b, seen))):
            return True
    return False


for f in files:
    for g in calls[f]:
        if reaches(g, f, set()):
            errors.append(f'{f} and {g} call each other in a loop')

if errors:
    print('\n'.join('error: ' + e for e in sorted(set(errors))))
    sys.exit(1)
print(f'ok: {len(files)} files, no call goes up a layer or round a loop')
