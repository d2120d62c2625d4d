#!/usr/bin/env python3
"""Rewrite files in place with what differs between two runs of the same
binary replaced: timestamps, run ids, durations, loopback ports, temporary
paths. Used by scripts/compare-outputs.sh."""
import re, sys
SUBS = [
    (re.compile(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z'), 'TIME'),
    (re.compile(r'127\.0\.0\.1:\d+'), '127.0.0.1:PORT'),
    (re.compile(r'localhost:\d+'), 'localhost:PORT'),
    (re.compile(r'run-[0-9a-zA-Z_-]{6,}'), 'RUNID'),
    (re.compile(r'"(\w*(?:[mM]s|Ms|Seconds|duration|Duration|elapsed|Elapsed|At|rss\w*))"\s*:\s*-?[\d.e+-]+'), r'"\1": N'),
    (re.compile(r'/tmp/[\w.-]+'), '/tmp/X'),
    (re.compile(r'\brun_\d+_\d+'), 'RUNID'),
    (re.compile(r'\b(sc|el|rel|rev)_\d+\b'), r'\1_N'),
    (re.compile(r'"frameId":\s*"[0-9A-F]{16,}"'), '"frameId": "F"'),
    (re.compile(r'time="[\d.]+"'), 'time="N"'),
    (re.compile(r'\b\d+(\.\d+)? ?(ms|s)\b'), 'N\\2'),
]
for path in sys.argv[1:]:
    try:
        with open(path, encoding='utf-8', errors='surrogateescape') as f:
            text = f.read()
    except IsADirectoryError:
        continue
    for rx, rep in SUBS:
        text = rx.sub(rep, text)
    with open(path, 'w', encoding='utf-8', errors='surrogateescape') as f:
        f.write(text)
