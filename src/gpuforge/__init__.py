"""gpuforge: build, install and prove the legacy GPU Python stack."""

__version__ = "0.1.0"
