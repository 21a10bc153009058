@rem theano-gpu-config: point Theano at this conda environment (run by
@rem `conda activate`). This environment's config file goes last in THEANORC,
@rem so its cxx (the m2w64 g++ of this environment, not a g++ found earlier on
@rem PATH), cuDNN paths, device and floatX win over ~/.theanorc (THEANO_FLAGS
@rem still wins over both), and MKL_THREADING_LAYER=GNU as Theano asks.
@rem deactivate.d restores what was there before.
@if defined THEANORC set "_THEANO_GPU_CONFIG_THEANORC=%THEANORC%"
@rem Unset, Theano reads ~/.theanorc then ~/.theanorc.txt (it expands the ~).
@if not defined THEANORC set "THEANORC=~/.theanorc;~/.theanorc.txt"
@set "THEANORC=%THEANORC%;%CONDA_PREFIX%\etc\theano\theanorc"
@if defined MKL_THREADING_LAYER set "_THEANO_GPU_CONFIG_MKL_THREADING_LAYER=%MKL_THREADING_LAYER%"
@set "MKL_THREADING_LAYER=GNU"
