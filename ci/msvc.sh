#!/usr/bin/env bash
# Windows: the MSVC v142 toolset (14.29, "MSVC v142 - VS 2019 C++ x64/x86 build tools") for
# conda-build's vs2019_win-64 compiler (recipes/conda_build_config.yaml says why vs2019 and
# not vs2015), loaded into the job so that every later step finds cl.exe and nmake.
#
# Hosted windows-2022 runners have only Visual Studio 2022 and, since 2024-05, only its
# newest toolset (actions/runner-images #9701). This adds the installer component group
# Microsoft.VisualStudio.ComponentGroup.VC.Tools.142.x86.x64 when 14.29 is missing (several
# minutes; the installer's 3010, "done, reboot required", counts as done), then runs
# `vcvarsall.bat x64 -vcvars_ver=14.29` and hands what it set to the next steps of the job
# ($GITHUB_ENV, and its new PATH entries through $GITHUB_PATH). It stops (exit 3) when
# cl.exe 19.29 or nmake.exe is not there afterwards, instead of letting conda-build fail later.
#
#   ci/msvc.sh      (on Linux it has nothing to do and says so)
# shellcheck source=common.sh source-path=SCRIPTDIR
source "$(dirname "$0")/common.sh"

toolset="14.29"
component_group="Microsoft.VisualStudio.ComponentGroup.VC.Tools.142.x86.x64"
installer_dir="/c/Program Files (x86)/Microsoft Visual Studio/Installer"

step "platform"
host="$(host_platform)"
if [ "$host" != win-64 ]; then
    say "msvc: nothing to do on $host (MSVC is the win-64 compiler)"
    exit 0
fi

step "Visual Studio"
[ -x "$installer_dir/vswhere.exe" ] || die 3 "no Visual Studio Installer ($installer_dir/vswhere.exe):" \
    "install Visual Studio 2019 or later (Build Tools are enough) with $component_group"
install_path="$("$installer_dir/vswhere.exe" -latest -products '*' \
    -requires Microsoft.VisualStudio.Component.VC.Tools.x86.x64 -property installationPath | tr -d '\r')"
[ -n "$install_path" ] || die 3 "vswhere found no Visual Studio with the C++ tools: install one with $component_group"
install_path="$(cygpath -u "$install_path")"
say "    $install_path"

has_toolset() { compgen -G "$install_path/VC/Tools/MSVC/$toolset.*/bin/Hostx64/x64/cl.exe" >/dev/null; }

step "MSVC $toolset toolset"
if has_toolset; then
    say "    present"
else
    say "    adding $component_group (the Visual Studio Installer takes several minutes)"
    # Start-Process -Wait also waits for the installer's child processes. PowerShell, not
    # bash, expands the $ names below (the values come in through the environment).
    # shellcheck disable=SC2016
    VS_INSTALL_PATH="$(cygpath -w "$install_path")" VS_COMPONENT="$component_group" \
        powershell.exe -NoProfile -NonInteractive -Command '
        $installer = Join-Path ${env:ProgramFiles(x86)} "Microsoft Visual Studio\Installer\vs_installer.exe"
        $arguments = @("modify", "--installPath", "`"$env:VS_INSTALL_PATH`"", "--add", $env:VS_COMPONENT,
                       "--quiet", "--norestart", "--nocache")
        $p = Start-Process -FilePath $installer -ArgumentList $arguments -Wait -PassThru
        exit $p.ExitCode' && status=0 || status=$?
    case "$status" in
        0) say "    installed" ;;
        3010) say "    installed (exit 3010: a reboot is requested, not needed for the compiler)" ;;
        *) die 1 "the Visual Studio Installer failed to add $component_group (exit $status)" ;;
    esac
    has_toolset || die 3 "$component_group installed, but no cl.exe $toolset under $install_path/VC/Tools/MSVC"
fi

step "vcvarsall.bat x64 -vcvars_ver=$toolset"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
vcvarsall="$(cygpath -w "$install_path/VC/Auxiliary/Build/vcvarsall.bat")"
printf '@call "%s" x64 -vcvars_ver=%s\r\n@if errorlevel 1 exit /b 1\r\n@set\r\n' "$vcvarsall" "$toolset" \
    >"$work/vcvars.bat"
cmd.exe //d //c set | tr -d '\r' >"$work/before.txt"
cmd.exe //d //c "$(cygpath -w "$work/vcvars.bat")" | tr -d '\r' >"$work/after.txt" ||
    die 3 "vcvarsall.bat x64 -vcvars_ver=$toolset failed: $(tail -n 5 "$work/after.txt")"
grep -q '^\[ERROR' "$work/after.txt" && die 3 "vcvarsall.bat reported: $(grep '^\[ERROR' "$work/after.txt")"

msvc_env_changes "$work/before.txt" "$work/after.txt" "$work/env.txt" "$work/path.txt"
mapfile -t changed <"$work/env.txt"
mapfile -t added_paths <"$work/path.txt"

step "cl.exe and nmake.exe"
# Windows paths, as cmd gave them: look for the programs in the entries vcvarsall added.
found_cl="" found_nmake=""
for entry in "${added_paths[@]}"; do
    dir="$(cygpath -u "$entry")"
    [ -n "$found_cl" ] || { [ -f "$dir/cl.exe" ] && found_cl="$dir/cl.exe"; }
    [ -n "$found_nmake" ] || { [ -f "$dir/nmake.exe" ] && found_nmake="$dir/nmake.exe"; }
done
[ -n "$found_cl" ] && [ -n "$found_nmake" ] || die 3 "after vcvarsall.bat x64 -vcvars_ver=$toolset," \
    "cl.exe (${found_cl:-missing}) or nmake.exe (${found_nmake:-missing}) is not on its PATH"
banner="$("$found_cl" 2>&1 >/dev/null | head -n 1 | tr -d '\r' || true)"
case "$banner" in
    *"Version 19.29."*) say "    $found_cl: $banner" ;;
    *) die 3 "$found_cl is not the $toolset toolset: $banner" ;;
esac
say "    $found_nmake"

step "the MSVC $toolset environment for the next steps"
if [ -n "${GITHUB_ENV:-}" ] && [ -n "${GITHUB_PATH:-}" ]; then
    [ ${#changed[@]} -eq 0 ] || printf '%s\n' "${changed[@]}" >>"$GITHUB_ENV"
    # Each $GITHUB_PATH line goes first on PATH: write them last to first to keep vcvars' order.
    for ((i = ${#added_paths[@]} - 1; i >= 0; i--)); do
        printf '%s\n' "${added_paths[i]}" >>"$GITHUB_PATH"
    done
    say "    ${#changed[@]} variable(s) to \$GITHUB_ENV, ${#added_paths[@]} PATH entries to \$GITHUB_PATH"
else
    say "    not in GitHub Actions: run ci/build.sh from a prompt where \`vcvarsall.bat x64" \
        "-vcvars_ver=$toolset\` has run"
fi
