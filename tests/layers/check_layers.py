#!/usr/bin/env python3
"""check_layers.py - the layering of docs/ARCHITECTURE.md held on the built
objects. Which file defines and which uses each global symbol (nm on
BUILD/obj/**.o) gives the graph of files; the table (tests/layers/layers.txt)
gives each file its concept and each concept its layer. Fails (exit 1),
saying each, on:

  - a file the table does not classify (sources and headers of the scanned
    folders, and every object);
  - a file of lib/ in a folder lib/NAME/ that is not its concept's;
  - a circle: two or more files that use each other, through any chain
    (a strongly connected component), with the symbols of each step;
  - a use upward: a file that uses a file of another concept whose layer is
    not below its own (concepts of one layer do not use each other).

Works with lib/ flat or in folders by concept (lib/CONCEPT/fc_x.c): a file
is matched as lib/fc_x.c either way. --graph FILE reads the uses from a
fixture instead ("USER DEFINER SYMBOL" per line, paths as above), for the
test that plants a violation. Exit 0 clean, 1 violations, 2 bad input.
"""
import argparse
import collections
import fnmatch
import os
import subprocess
import sys

SOURCE_EXT = ('.c', '.h', '.cu')
IGNORED_SYMBOLS = ('main',)               # each program's own
IGNORED_PREFIXES = ('DW.ref.', '_GLOBAL_', '__')


def fail_input(msg):
    print('check-layers: %s' % msg, file=sys.stderr)
    sys.exit(2)


def read_table(path):
    """{concept: layer}, [(pattern, concept, lineno)], [top folders]"""
    layers, rules, scan = {}, [], []
    try:
        lines = open(path).read().split('\n')
    except OSError as e:
        fail_input('%s: %s' % (path, e.strerror))
    for n, raw in enumerate(lines, 1):
        line = raw.split('#', 1)[0].split()
        if not line:
            continue
        if line[0] == 'layer' and len(line) == 3 and line[2].lstrip('-').isdigit():
            if line[1] in layers:
                fail_input('%s:%d: concept %s given twice' % (path, n, line[1]))
            layers[line[1]] = int(line[2])
        elif line[0] == 'scan' and len(line) >= 2:
            scan.extend(line[1:])
        elif len(line) == 2 and line[0] not in ('layer', 'scan'):
            rules.append((line[0], line[1], n))
        else:
            fail_input('%s:%d: not "layer CONCEPT N", "scan DIR..." or "PATTERN CONCEPT": %s'
                       % (path, n, raw.strip()))
    for pat, concept, n in rules:
        if concept not in layers:
            fail_input('%s:%d: concept %s has no layer' % (path, n, concept))
    if not scan:
        fail_input('%s: no "scan" line' % path)
    return layers, rules, scan


def table_name(rel):
    """lib/CONCEPT/fc_x.c -> (lib/fc_x.c, CONCEPT); lib/gpu stays itself."""
    parts = rel.split('/')
    if len(parts) == 3 and parts[0] == 'lib' and parts[1] != 'gpu':
        return 'lib/' + parts[2], parts[1]
    return rel, None


def classify(name, rules):
    """An exact name wins; else the longest pattern that matches."""
    best = None
    for pat, concept, _ in rules:
        if not fnmatch.fnmatchcase(name, pat):
            continue
        exact = not any(c in pat for c in '*?[')
        key = (exact, len(pat))
        if best is None or key > best[0]:
            best = (key, concept)
    return best[1] if best else None


def source_files(root, scan):
    out = []
    for top in scan:
        for dirpath, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(SOURCE_EXT):
                    out.append(os.path.relpath(os.path.join(dirpath, f), root))
    return out


def object_uses(root, objdir, scan):
    """(files, [(user, definer, symbol)]) from nm on the objects (one nm run)."""
    defs = collections.defaultdict(set)
    uses = collections.defaultdict(set)
    files, paths = [], {}
    for top in scan:
        for dirpath, dirs, names in os.walk(os.path.join(objdir, top)):
            dirs.sort()
            for f in sorted(names):
                if not f.endswith('.o'):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, objdir)[:-2]
                rel = rel if rel.endswith('.cu') else rel + '.c'
                if not os.path.exists(os.path.join(root, rel)):
                    continue            # left over from a source moved or removed
                files.append(rel)
                paths[path] = rel
    if not paths:
        return files, []
    try:
        out = subprocess.run(['nm', '-P', '-A'] + sorted(paths), capture_output=True,
                             text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        fail_input('nm: %s' % e)
    for line in out.splitlines():
        obj, _, rest = line.partition(': ')
        p = rest.split()
        if obj not in paths or len(p) < 2 or p[0] in IGNORED_SYMBOLS or \
                p[0].startswith(IGNORED_PREFIXES):
            continue
        rel = paths[obj]
        if p[1] == 'U':
            uses[rel].add(p[0])
        elif p[1] in 'TDBRWVCGSi':
            defs[p[0]].add(rel)
    edges = []
    for user, syms in uses.items():
        for s in syms:
            for d in defs.get(s, ()):
                if d != user:
                    edges.append((user, d, s))
    return files, edges


def fixture_uses(path):
    files, edges = set(), []
    for n, raw in enumerate(open(path).read().split('\n'), 1):
        p = raw.split('#', 1)[0].split()
        if not p:
            continue
        if len(p) != 3:
            fail_input('%s:%d: not "USER DEFINER SYMBOL"' % (path, n))
        edges.append(tuple(p))
        files.update(p[:2])
    return sorted(files), edges


def circles(nodes, graph):
    """Strongly connected components of two or more nodes (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--root', default='.')
    ap.add_argument('--objdir', default=None, help='default ROOT/build/obj')
    ap.add_argument('--table', default=None, help='default ROOT/tests/layers/layers.txt')
    ap.add_argument('--graph', default=None, help='a fixture of uses instead of the objects')
    ap.add_argument('-v', '--verbose', action='store_true')
    a = ap.parse_args()
    root = a.root
    table = a.table or os.path.join(root, 'tests/layers/layers.txt')
    objdir = a.objdir or os.path.join(root, 'build/obj')
    layers, rules, scan = read_table(table)

    if a.graph:
        files, edges = fixture_uses(a.graph)
        sources = []
    else:
        if not os.path.isdir(objdir):
            fail_input('%s: no objects (build first: make all)' % objdir)
        files, edges = object_uses(root, objdir, scan)
        if not files:
            fail_input('%s: no objects under %s' % (objdir, ' '.join(scan)))
        sources = source_files(root, scan)

    problems = []
    concept = {}
    for f in sorted(set(files) | set(sources)):
        name, folder = table_name(f)
        c = classify(name, rules)
        if c is None:
            problems.append('%s: not classified: add a "PATTERN CONCEPT" line to %s'
                            % (f, table))
            continue
        if folder is not None and folder != c:
            problems.append('%s: in lib/%s/, but its concept is %s (%s)' % (f, folder, c, table))
        concept[f] = c

    graph = collections.defaultdict(set)
    why = collections.defaultdict(list)
    for u, d, s in edges:
        graph[u].add(d)
        why[(u, d)].append(s)

    for comp in circles(sorted(set(files)), graph):
        steps = []
        for u in comp:
            for d in sorted(graph[u]):
                if d in comp:
                    steps.append('    %s -> %s (%s)' % (u, d, ', '.join(sorted(why[(u, d)])[:3])))
        problems.append('circle of %d files: %s\n%s' % (len(comp), ' '.join(comp), '\n'.join(steps)))

    for (u, d), syms in sorted(why.items()):
        cu, cd = concept.get(u), concept.get(d)
        if cu is None or cd is None or cu == cd:
            continue
        if layers[cd] >= layers[cu]:
            problems.append('%s (%s, layer %d) uses %s (%s, layer %d): %s; a file may use '
                            'its own concept and lower layers only'
                            % (u, cu, layers[cu], d, cd, layers[cd], ', '.join(sorted(syms)[:3])))

    if a.verbose:
        per = collections.Counter(concept.values())
        for c in sorted(layers, key=lambda c: (layers[c], c)):
            print('# layer %2d %-12s %d file(s)' % (layers[c], c, per.get(c, 0)))
    for p in problems:
        print('check-layers: ' + p)
    if problems:
        print('check-layers: %d problem(s) in %d files, %d uses' % (len(problems), len(files), len(edges)))
        return 1
    print('check-layers: %d files, %d uses: no circle, no use upward' % (len(files), len(edges)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
