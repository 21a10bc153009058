"""Scripts run by the interpreter under test (Python 2.7 and 3.6+, stdlib only).

They are run as files (``python gpu_checks.py CHECK``), never imported by the
host: each prints one JSON line and never crashes.
"""
