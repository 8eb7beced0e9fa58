#!/usr/bin/env python3
"""The reference's compare.py, run twice over ONE replay of the cases.

  compare-both.py GOLDEN_DIR WITH.json WITHOUT.json [compare.py's options but --json]

The golden test compares the answers once with metadata.managedFields and once without. Both
comparisons are of the same answers, so the cases are sent once: the first pass (with
managedFields) replays them, the second (--without-managed-fields) compares what it got. Each
pass is compare.py's own main(), unchanged; only its run_case is wrapped to replay each case
once. A replay is most of the golden test's time (about half a minute per backend).
"""
import os
import sys

golden_dir, with_out, without_out, *args = sys.argv[1:]
sys.path.insert(0, os.path.abspath(golden_dir))
import compare  # noqa: E402  (the reference's compare.py; main() is guarded by __name__)

answers = {}
replay_case = compare.run_case


def run_case_once(server, case, base_dir=None):
    if case['id'] not in answers:
        try:
            answers[case['id']] = (replay_case(server, case, base_dir), None)
        except Exception as e:  # compare.main reports it as the case's ERROR, on both passes
            answers[case['id']] = (None, e)
    got, err = answers[case['id']]
    if err is not None:
        raise err
    return got


compare.run_case = run_case_once
for extra, out in (([], with_out), (['--without-managed-fields'], without_out)):
    sys.argv = [os.path.join(golden_dir, 'compare.py'), *args, *extra, '--json', out]
    compare.main()
