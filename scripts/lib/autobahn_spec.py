#!/usr/bin/env python3
"""Write a wstest fuzzingclient spec (scripts/lib/autobahn.sh: autobahn_write_spec).

    autobahn_spec.py SPEC_JSON OUTDIR URL CASES EXCLUDES

CASES and EXCLUDES are comma-separated case patterns (empty CASES means "*"); the patterns in
WHISPER_AUTOBAHN_EXCLUDE are excluded as well. The one server under test is agent "whisper".
"""
import json, os, sys
split = lambda v: [c.strip() for c in v.split(",") if c.strip()]
spec = {
    "outdir": sys.argv[2],
    "servers": [{"agent": "whisper", "url": sys.argv[3]}],
    "cases": split(sys.argv[4]) or ["*"],
    "exclude-cases": split(sys.argv[5]) + split(os.environ.get("WHISPER_AUTOBAHN_EXCLUDE", "")),
    "exclude-agent-cases": {},
}
with open(sys.argv[1], "w") as f:
    json.dump(spec, f, indent=2)
