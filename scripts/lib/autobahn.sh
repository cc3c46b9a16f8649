# shellcheck shell=bash
# Autobahn|Testsuite runs: the fuzzingclient spec and the evaluation of its results. The work is
# done by the Python programs beside this file (autobahn_spec.py, autobahn_evaluate.py); the
# virtualenv with wstest comes from autobahn_venv (python.sh).
# Sourced by scripts/lib.sh; do not run it.

# autobahn_write_spec SPEC_JSON OUTDIR URL CASES EXCLUDES: write a wstest fuzzingclient spec for
# the server at URL, reports into OUTDIR. CASES and EXCLUDES are comma-separated case patterns
# (empty CASES: all); WHISPER_AUTOBAHN_EXCLUDE is excluded too.
autobahn_write_spec() {
  python3 "$WHISPER_REPO_ROOT/scripts/lib/autobahn_spec.py" "$@"
}

# autobahn_evaluate INDEX_JSON...: print failing cases (with expected/received from their reports)
# and a summary line `autobahn: N passed, M failed`. Non-zero when a case failed or none ran.
# OK, NON-STRICT and INFORMATIONAL pass; UNIMPLEMENTED passes only with
# WHISPER_AUTOBAHN_ALLOW_UNIMPLEMENTED=1.
autobahn_evaluate() {
  python3 "$WHISPER_REPO_ROOT/scripts/lib/autobahn_evaluate.py" "$@"
}
