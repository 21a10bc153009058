from gpuforge.cli import run

run()
