#!/usr/bin/env python3
"""Evaluate Autobahn|Testsuite results (scripts/lib/autobahn.sh: autobahn_evaluate).

    autobahn_evaluate.py INDEX_JSON...

Reads each shard's reports/index.json ({agent: {case: result}}), prints every failing case with
the description, expected and received values from its per-case report, then a summary line
`autobahn: N passed, M failed`. Exit status 1 when a case failed or none ran.
OK, NON-STRICT and INFORMATIONAL pass; UNIMPLEMENTED passes only with
WHISPER_AUTOBAHN_ALLOW_UNIMPLEMENTED=1.
"""
import json, os, sys

good = {"OK", "NON-STRICT", "INFORMATIONAL"}
if os.environ.get("WHISPER_AUTOBAHN_ALLOW_UNIMPLEMENTED") == "1":
    good.add("UNIMPLEMENTED")

def case_key(case_id):
    return tuple(int(p) if p.isdigit() else p for p in case_id.split("."))

def short(value, limit=300):
    text = json.dumps(value, ensure_ascii=True) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[:limit] + "..."

# Every shard's index.json: {agent: {case: result}}; remember where each case's report lives.
results = []
for index_path in sys.argv[1:]:
    try:
        with open(index_path) as f:
            index = json.load(f)
    except (OSError, ValueError) as e:
        print("autobahn: cannot read %s: %s" % (index_path, e))
        print("autobahn: 0 passed, 1 failed")
        sys.exit(1)
    for agent, cases in index.items():
        for case_id, r in cases.items():
            results.append((agent, case_id, r, os.path.dirname(index_path)))

passed, failed = 0, []
for agent, case_id, r, report_dir in sorted(results, key=lambda t: (t[0], case_key(t[1]))):
    if r.get("behavior") in good and r.get("behaviorClose") in good:
        passed += 1
    else:
        failed.append((agent, case_id, r, report_dir))

for agent, case_id, r, report_dir in failed:
    print("FAILED %s: behavior=%s behaviorClose=%s remoteCloseCode=%s" % (
        case_id, r.get("behavior"), r.get("behaviorClose"), r.get("remoteCloseCode")))
    try:
        with open(os.path.join(report_dir, r.get("reportfile", ""))) as f:
            detail = json.load(f)
    except (OSError, ValueError):
        continue
    print("    description: %s" % short(detail.get("description", ""), 200))
    print("    result:      %s" % short(detail.get("result", "")))
    print("    expected:    %s" % short(detail.get("expected")))
    print("    received:    %s" % short(detail.get("received")))
    if r.get("behaviorClose") not in good:
        print("    resultClose: %s" % short(detail.get("resultClose", "")))
        print("    expectedClose: %s" % short(detail.get("expectedClose")))

if failed:
    print("autobahn: failing cases: %s" % " ".join(c for _, c, _, _ in failed))
print("autobahn: %d passed, %d failed" % (passed, len(failed)))
sys.exit(1 if failed or passed == 0 else 0)
