:: Install Theano from its sdist into %PREFIX% (conda-build's bld.bat contract).
"%PYTHON%" -m pip install . --no-deps --no-build-isolation -vv
if errorlevel 1 exit 1
