#!/usr/bin/env bash
# Windows: make the MSVC v140 toolset (Visual Studio 2015, the vc14 compiler of
# recipes/conda_build_config.yaml) usable by conda-build's `vs2015_win-64` package.
#
# Hosted windows-2022 runners have Visual Studio 2022 without the v140 toolset
# (`vcvarsall.bat -vcvars_ver=14.0` there fails with "VC++ 14.0 Toolset Installation
# was not found"); windows-2019, which had it, was retired on 2025-06-30. This adds the
# installer component Microsoft.VisualStudio.Component.VC.140 ("MSVC v140 - VS 2015 C++
# build tools", several minutes), which installs into
# "C:\Program Files (x86)\Microsoft Visual Studio 14.0", then sets VS140COMNTOOLS: the
# activation script of vs2015_win-64 (Anaconda's pkgs/main) finds Visual Studio 2015
# through the registry or that variable and calls %VS140COMNTOOLS%..\..\VC\vcvarsall.bat.
#
#   ci/msvc-v140.sh      (on Linux it has nothing to do and says so)
# shellcheck source=common.sh source-path=SCRIPTDIR
source "$(dirname "$0")/common.sh"

component="Microsoft.VisualStudio.Component.VC.140"
# shellcheck disable=SC1003  # a Windows path ending in a backslash, not an escape
vs140_tools='C:\Program Files (x86)\Microsoft Visual Studio 14.0\Common7\Tools\'
vcvarsall="/c/Program Files (x86)/Microsoft Visual Studio 14.0/VC/vcvarsall.bat"
installer_dir="/c/Program Files (x86)/Microsoft Visual Studio/Installer"

step "platform"
host="$(host_platform)"
if [ "$host" != win-64 ]; then
    say "msvc-v140: nothing to do on $host (vs2015 is the win-64 compiler)"
    exit 0
fi

step "MSVC v140 toolset ($vcvarsall)"
if [ -f "$vcvarsall" ]; then
    say "    present"
else
    [ -x "$installer_dir/vswhere.exe" ] || die 3 "no Visual Studio Installer ($installer_dir/vswhere.exe):" \
        "install Visual Studio 2017 or later (Build Tools are enough) with the component $component"
    install_path="$("$installer_dir/vswhere.exe" -latest -products '*' \
        -requires Microsoft.VisualStudio.Component.VC.Tools.x86.x64 -property installationPath | tr -d '\r')"
    [ -n "$install_path" ] || die 3 "vswhere found no Visual Studio with the C++ tools: install one with $component"
    say "    adding $component to $install_path (the Visual Studio Installer takes several minutes)"
    # Start-Process -Wait also waits for the installer's child processes. PowerShell, not
    # bash, expands the $ names below (the values come in through the environment).
    # shellcheck disable=SC2016
    VS_INSTALL_PATH="$install_path" VS_COMPONENT="$component" powershell.exe -NoProfile -NonInteractive -Command '
        $installer = Join-Path ${env:ProgramFiles(x86)} "Microsoft Visual Studio\Installer\vs_installer.exe"
        $arguments = @("modify", "--installPath", "`"$env:VS_INSTALL_PATH`"", "--add", $env:VS_COMPONENT,
                       "--quiet", "--norestart", "--nocache")
        $p = Start-Process -FilePath $installer -ArgumentList $arguments -Wait -PassThru
        exit $p.ExitCode' || die 1 "the Visual Studio Installer failed to add $component"
    [ -f "$vcvarsall" ] || die 1 "$component installed, but $vcvarsall is not there"
fi

step "VS140COMNTOOLS for vs2015_win-64's activation"
if [ -n "${GITHUB_ENV:-}" ]; then
    printf 'VS140COMNTOOLS=%s\n' "$vs140_tools" >>"$GITHUB_ENV"
    say "    VS140COMNTOOLS=$vs140_tools (for the next steps of this job)"
else
    say "    set it for ci/build.sh: export VS140COMNTOOLS='$vs140_tools'"
fi
