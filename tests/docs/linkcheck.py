#!/usr/bin/env python3
"""linkcheck.py - every relative link in README.md and docs/**/*.md
resolves: the file it names exists and, for a #fragment, the target has a
heading with that anchor (GitHub's rule: lower case, punctuation dropped,
spaces to hyphens, -1, -2 ... for repeats). Links may span lines; code
blocks and inline code are skipped. Prints each broken link as FILE:LINE
and exits 1 when any is broken; used by tests/e2e/docs.t."""
import os, re, sys, glob
root = sys.argv[1] if len(sys.argv) > 1 else '.'
def slug(h):
    s = h.strip().lower()
    s = re.sub(r'[^\w\- ]', '', s)
    return s.replace(' ', '-')
def strip_fences(text):
    """Blank out fenced code blocks, keeping offsets."""
    return re.sub(r'^```.*?^```', lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text, flags=re.S | re.M)
def strip_code(text):
    """Blank out fenced blocks and inline code, keeping offsets."""
    return re.sub(r'`[^`\n]*`', lambda m: ' ' * len(m.group(0)), strip_fences(text))
def anchors(path):
    out, seen = set(), {}
    for m in re.finditer(r'^(#{1,6})[ \t]+(.*?)[ \t]*$', strip_fences(open(path, encoding='utf-8').read()), re.M):
        s = slug(m.group(2).replace('`', ''))
        n = seen.get(s, 0); seen[s] = n + 1
        out.add(s if n == 0 else f'{s}-{n}')
    return out
files = [os.path.join(root, 'README.md')] + sorted(glob.glob(os.path.join(root, 'docs', '**', '*.md'), recursive=True))
link_re = re.compile(r'\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)\)')
bad = total = 0
cache = {}
for f in files:
    body = strip_code(open(f, encoding='utf-8').read())
    for m in link_re.finditer(body):
        target = m.group(1)
        if re.match(r'[a-z]+://|mailto:', target):
            continue
        total += 1
        ln = body.count('\n', 0, m.start()) + 1
        path, _, frag = target.partition('#')
        dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        if not os.path.exists(dest):
            print(f'{f}:{ln}: missing file: {target}'); bad += 1; continue
        if frag:
            if os.path.isdir(dest) or not dest.endswith('.md'):
                print(f'{f}:{ln}: anchor on a non-markdown target: {target}'); bad += 1; continue
            if dest not in cache:
                cache[dest] = anchors(dest)
            if frag not in cache[dest]:
                print(f'{f}:{ln}: missing anchor: {target}'); bad += 1
print(f'{total} relative links in {len(files)} files, {bad} broken')
sys.exit(1 if bad else 0)
