"""Fuzz targets and a fuzz driver (docs/fuzzing.md).

Every target is a function ``fn(data: bytes) -> None`` that returns quietly
on an input the code under test rejects the way it should (a XenophonError,
or the error class the target names) and raises on anything else: a finding.
``python -m tests.fuzz.run TARGET`` runs one for as long as asked.
"""
