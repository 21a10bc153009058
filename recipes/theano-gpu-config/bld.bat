:: Install theano-gpu-config into %PREFIX% (conda-build's bld.bat contract): its
:: activation scripts, nothing else. They find the environment's g++ and cuDNN and
:: write Theano's config file at activation time (see build.sh).
mkdir "%PREFIX%\etc\conda\activate.d" "%PREFIX%\etc\conda\deactivate.d"
copy /y "%RECIPE_DIR%\etc\conda\activate.d\%PKG_NAME%_activate.bat" "%PREFIX%\etc\conda\activate.d\%PKG_NAME%_activate.bat"
if errorlevel 1 exit 1
copy /y "%RECIPE_DIR%\etc\conda\deactivate.d\%PKG_NAME%_deactivate.bat" "%PREFIX%\etc\conda\deactivate.d\%PKG_NAME%_deactivate.bat"
if errorlevel 1 exit 1
