@rem theano-gpu-config: point Theano at this conda environment (run by
@rem `conda activate`). At each activation it writes the environment's Theano config
@rem file, %CONDA_PREFIX%\etc\theano\theanorc, from what the environment has now:
@rem cxx = the m2w64-toolchain g++ of this environment (Library\mingw-w64\bin\g++.exe,
@rem not a g++ found earlier on PATH), the cudnn package's folders as [dnn]
@rem include_path/library_path/bin_path when it is cuDNN 5.1 ... 7 (cudnn.h without
@rem cudnn_version.h), else [dnn] enabled = False with the reason (cuDNN 8+ lacks functions
@rem Theano 1.0.5 calls, Theano #6791; GpuCorrMM does the convolutions), device=cuda, floatX=float32; and a
@rem Jupyter kernel spec with the same settings. Then THEANORC gets that file last,
@rem so its values win over ~/.theanorc (THEANO_FLAGS still wins over both), and
@rem MKL_THREADING_LAYER=GNU as Theano asks. deactivate.d restores both.
@rem Paths are written with forward slashes, which Theano and Jupyter take on Windows.
@set "_THEANO_GPU_CONFIG_P=%CONDA_PREFIX:\=/%"
@set "_THEANO_GPU_CONFIG_RC=%CONDA_PREFIX%\etc\theano\theanorc"
@if not exist "%CONDA_PREFIX%\etc\theano" mkdir "%CONDA_PREFIX%\etc\theano"
@> "%_THEANO_GPU_CONFIG_RC%" echo # Theano settings of the conda environment %_THEANO_GPU_CONFIG_P%, written at
@>>"%_THEANO_GPU_CONFIG_RC%" echo # activation by theano-gpu-config (do not edit: the next activation rewrites it).
@>>"%_THEANO_GPU_CONFIG_RC%" echo # Activation puts this file last in THEANORC, so these values win over
@>>"%_THEANO_GPU_CONFIG_RC%" echo # ~/.theanorc; THEANO_FLAGS and theano.config assignments still win over them.
@>>"%_THEANO_GPU_CONFIG_RC%" echo [global]
@if exist "%CONDA_PREFIX%\Library\mingw-w64\bin\g++.exe" >>"%_THEANO_GPU_CONFIG_RC%" echo # This environment's g++, not the first g++ on PATH.
@if exist "%CONDA_PREFIX%\Library\mingw-w64\bin\g++.exe" >>"%_THEANO_GPU_CONFIG_RC%" echo cxx = %_THEANO_GPU_CONFIG_P%/Library/mingw-w64/bin/g++.exe
@if not exist "%CONDA_PREFIX%\Library\mingw-w64\bin\g++.exe" echo theano-gpu-config: no g++ in %CONDA_PREFIX% (conda install m2w64-toolchain): Theano will use the first g++ on PATH 1>&2
@>>"%_THEANO_GPU_CONFIG_RC%" echo device = cuda
@>>"%_THEANO_GPU_CONFIG_RC%" echo floatX = float32
@>>"%_THEANO_GPU_CONFIG_RC%" echo.
@>>"%_THEANO_GPU_CONFIG_RC%" echo [dnn]
@set "_THEANO_GPU_CONFIG_DNN=none"
@if exist "%CONDA_PREFIX%\Library\include\cudnn.h" set "_THEANO_GPU_CONFIG_DNN=7"
@if exist "%CONDA_PREFIX%\Library\include\cudnn_version.h" set "_THEANO_GPU_CONFIG_DNN=8"
@if "%_THEANO_GPU_CONFIG_DNN%"=="8" >>"%_THEANO_GPU_CONFIG_RC%" echo # cuDNN 8 or newer in this environment (include/cudnn_version.h): Theano 1.0.5
@if "%_THEANO_GPU_CONFIG_DNN%"=="8" >>"%_THEANO_GPU_CONFIG_RC%" echo # calls functions it removed (Theano #6791), so cuDNN is off; GpuCorrMM does the convolutions.
@if "%_THEANO_GPU_CONFIG_DNN%"=="7" >>"%_THEANO_GPU_CONFIG_RC%" echo # The cudnn package's header and library (cuDNN 7 or older).
@if "%_THEANO_GPU_CONFIG_DNN%"=="7" >>"%_THEANO_GPU_CONFIG_RC%" echo include_path = %_THEANO_GPU_CONFIG_P%/Library/include
@if "%_THEANO_GPU_CONFIG_DNN%"=="7" >>"%_THEANO_GPU_CONFIG_RC%" echo library_path = %_THEANO_GPU_CONFIG_P%/Library/lib
@if "%_THEANO_GPU_CONFIG_DNN%"=="7" >>"%_THEANO_GPU_CONFIG_RC%" echo bin_path = %_THEANO_GPU_CONFIG_P%/Library/bin
@if "%_THEANO_GPU_CONFIG_DNN%"=="none" >>"%_THEANO_GPU_CONFIG_RC%" echo # No cuDNN in this environment, and Theano 1.0.5 can use only cuDNN 5.1 ... 7:
@if "%_THEANO_GPU_CONFIG_DNN%"=="none" >>"%_THEANO_GPU_CONFIG_RC%" echo # cuDNN is off (not even a system one), GpuCorrMM does the convolutions.
@if not "%_THEANO_GPU_CONFIG_DNN%"=="7" >>"%_THEANO_GPU_CONFIG_RC%" echo enabled = False
@rem Kernels started by Jupyter get no activation: the spec carries the settings.
@set "_THEANO_GPU_CONFIG_KERNEL=%CONDA_PREFIX%\share\jupyter\kernels\theano-gpu\kernel.json"
@if not exist "%CONDA_PREFIX%\share\jupyter\kernels\theano-gpu" mkdir "%CONDA_PREFIX%\share\jupyter\kernels\theano-gpu"
@> "%_THEANO_GPU_CONFIG_KERNEL%" echo {
@>>"%_THEANO_GPU_CONFIG_KERNEL%" echo  "argv": ["%_THEANO_GPU_CONFIG_P%/python.exe", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
@>>"%_THEANO_GPU_CONFIG_KERNEL%" echo  "display_name": "Python (Theano GPU, %_THEANO_GPU_CONFIG_P%)",
@>>"%_THEANO_GPU_CONFIG_KERNEL%" echo  "language": "python",
@>>"%_THEANO_GPU_CONFIG_KERNEL%" echo  "env": {
@>>"%_THEANO_GPU_CONFIG_KERNEL%" echo   "THEANORC": "~/.theanorc;~/.theanorc.txt;%_THEANO_GPU_CONFIG_P%/etc/theano/theanorc",
@>>"%_THEANO_GPU_CONFIG_KERNEL%" echo   "MKL_THREADING_LAYER": "GNU",
@>>"%_THEANO_GPU_CONFIG_KERNEL%" echo   "PATH": "%_THEANO_GPU_CONFIG_P%/Library/mingw-w64/bin;%_THEANO_GPU_CONFIG_P%/Library/usr/bin;%_THEANO_GPU_CONFIG_P%/Library/bin;%_THEANO_GPU_CONFIG_P%/Scripts;%_THEANO_GPU_CONFIG_P%;${PATH}"
@>>"%_THEANO_GPU_CONFIG_KERNEL%" echo  }
@>>"%_THEANO_GPU_CONFIG_KERNEL%" echo }
@if defined THEANORC set "_THEANO_GPU_CONFIG_THEANORC=%THEANORC%"
@rem Unset, Theano reads ~/.theanorc then ~/.theanorc.txt (it expands the ~).
@if not defined THEANORC set "THEANORC=~/.theanorc;~/.theanorc.txt"
@set "THEANORC=%THEANORC%;%_THEANO_GPU_CONFIG_RC%"
@if defined MKL_THREADING_LAYER set "_THEANO_GPU_CONFIG_MKL_THREADING_LAYER=%MKL_THREADING_LAYER%"
@set "MKL_THREADING_LAYER=GNU"
@set "_THEANO_GPU_CONFIG_DNN="
@set "_THEANO_GPU_CONFIG_P="
@set "_THEANO_GPU_CONFIG_RC="
@set "_THEANO_GPU_CONFIG_KERNEL="
