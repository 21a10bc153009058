:: Build libgpuarray with CMake and NMake into %LIBRARY_PREFIX% (conda-build's bld.bat contract).

:: conda-build has run the compiler activation (vs2019_win-64) before this script. Without
:: cl.exe or nmake.exe on PATH, cmake would stop later with an error that does not say why.
set "MISSING="
for %%P in (cl.exe nmake.exe) do if "%%~$PATH:P" == "" set "MISSING=%%P"
if errorlevel 1 exit 1
if defined MISSING echo bld.bat: %MISSING% is not on PATH after the MSVC activation of vs2019_win-64: in CI, ci/msvc.sh loads the 14.29 toolset; elsewhere run conda build from a prompt where vcvarsall.bat x64 -vcvars_ver=14.29 has run
if defined MISSING exit 1
mkdir build
cd build

cmake -G"NMake Makefiles" ^
    -DCMAKE_BUILD_TYPE=Release ^
    -DCMAKE_PREFIX_PATH="%LIBRARY_PREFIX%" ^
    -DCMAKE_INSTALL_PREFIX="%LIBRARY_PREFIX%" ^
    ..
if errorlevel 1 exit 1

nmake
if errorlevel 1 exit 1

nmake install
if errorlevel 1 exit 1
