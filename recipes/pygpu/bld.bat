:: Build pygpu against the libgpuarray installed in %LIBRARY_PREFIX% (conda-build's bld.bat contract).
set "INCLUDE=%LIBRARY_INC%;%INCLUDE%"
set "LIB=%LIBRARY_LIB%;%LIB%"

"%PYTHON%" -m pip install . --no-deps --no-build-isolation -vv
if errorlevel 1 exit 1
