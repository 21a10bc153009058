"""gpu_smoke: make each target environment, run the GPU checks and import tests, report, bench."""
