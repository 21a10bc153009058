:: Install theano-gpu-config into %PREFIX% (conda-build's bld.bat contract): the
:: activation scripts, the environment's Theano config file and a Jupyter kernel
:: spec. The last two name the prefix with forward slashes: conda replaces it at
:: install time (text mode, forward slashes on Windows).
set "P=%PREFIX:\=/%"

mkdir "%PREFIX%\etc\conda\activate.d" "%PREFIX%\etc\conda\deactivate.d" "%PREFIX%\etc\theano"
copy /y "%RECIPE_DIR%\activate.bat" "%PREFIX%\etc\conda\activate.d\%PKG_NAME%_activate.bat"
if errorlevel 1 exit 1
copy /y "%RECIPE_DIR%\deactivate.bat" "%PREFIX%\etc\conda\deactivate.d\%PKG_NAME%_deactivate.bat"
if errorlevel 1 exit 1

:: The environment's g++ is m2w64-toolchain's (a run requirement).
:: One redirected echo a line: cmd.exe and Wine's cmd both write these.
set "RC=%PREFIX%\etc\theano\theanorc"
> "%RC%" echo # Theano settings of the conda environment %P%, from %PKG_NAME%.
>>"%RC%" echo # Activation puts this file last in THEANORC, so these values win over
>>"%RC%" echo # ~/.theanorc; THEANO_FLAGS and theano.config assignments still win over them.
>>"%RC%" echo [global]
>>"%RC%" echo # This environment's g++, not the first g++ on PATH.
>>"%RC%" echo cxx = %P%/Library/mingw-w64/bin/g++.exe
>>"%RC%" echo device = cuda
>>"%RC%" echo floatX = float32
>>"%RC%" echo.
>>"%RC%" echo [dnn]
>>"%RC%" echo # The cudnn package's header and library.
>>"%RC%" echo include_path = %P%/Library/include
>>"%RC%" echo library_path = %P%/Library/lib
>>"%RC%" echo bin_path = %P%/Library/bin
if errorlevel 1 exit 1

:: Kernels started by Jupyter get no activation: the spec carries the settings.
mkdir "%PREFIX%\share\jupyter\kernels\theano-gpu"
set "KERNEL=%PREFIX%\share\jupyter\kernels\theano-gpu\kernel.json"
> "%KERNEL%" echo {
>>"%KERNEL%" echo  "argv": ["%P%/python.exe", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
>>"%KERNEL%" echo  "display_name": "Python (Theano GPU, %P%)",
>>"%KERNEL%" echo  "language": "python",
>>"%KERNEL%" echo  "env": {
>>"%KERNEL%" echo   "THEANORC": "~/.theanorc;~/.theanorc.txt;%P%/etc/theano/theanorc",
>>"%KERNEL%" echo   "MKL_THREADING_LAYER": "GNU",
>>"%KERNEL%" echo   "PATH": "%P%/Library/mingw-w64/bin;%P%/Library/usr/bin;%P%/Library/bin;%P%/Scripts;%P%;${PATH}"
>>"%KERNEL%" echo  }
>>"%KERNEL%" echo }
if errorlevel 1 exit 1
