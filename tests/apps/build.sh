#!/usr/bin/env bash
# Builds every clrscope test app (each folder here holding <Name>/<Name>.csproj).
#
#   tests/apps/build.sh OUTDIR
#
# For each app runs
#   dotnet build -c Release -o OUTDIR/<Name> <Name>/<Name>.csproj
# producing OUTDIR/<Name>/<Name>.dll (run with `dotnet OUTDIR/<Name>/<Name>.dll`)
# and the apphost OUTDIR/<Name>/<Name>.
#
# obj/ and bin/ go to OUTDIR/.obj/<Name>/ (see Directory.Build.props), never into
# the source tree. An app whose outputs are newer than all of its inputs is skipped
# without starting dotnet, so a rebuild with nothing changed takes well under a second.
# Set CLRSCOPE_APPS_FORCE=1 to always invoke dotnet build (MSBuild's own incremental
# build still applies).
#
# Prints one line per app. Fails (non-zero exit) on the first error.
set -euo pipefail

if [[ $# -ne 1 || -z "$1" ]]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"
objroot="$out/.obj/"

export DOTNET_CLI_TELEMETRY_OPTOUT=1
export DOTNET_NOLOGO=1
export DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
# No long-lived MSBuild worker nodes or MSBuild server left behind holding our
# stdout/stderr open (a caller reading our output through a pipe would hang).
export MSBUILDDISABLENODEREUSE=1
export DOTNET_CLI_USE_MSBUILD_SERVER=0

# Inputs shared by every app.
shared=("$here/Directory.Build.props" "$here/build.sh")

# up_to_date NAME: true when both outputs exist and are newer than every input.
up_to_date() {
    local name="$1" dll="$out/$1/$1.dll" host="$out/$1/$1" f
    [[ -f "$dll" && -x "$host" && -f "$out/$1/$1.runtimeconfig.json" ]] || return 1
    for f in "${shared[@]}" "$here/$name/$name.csproj" "$here/$name"/*.cs; do
        [[ -e "$f" ]] || continue
        [[ "$f" -nt "$dll" || "$f" -nt "$host" ]] && return 1
    done
    return 0
}

shopt -s nullglob
apps=()
for proj in "$here"/*/*.csproj; do
    name="$(basename "$(dirname "$proj")")"
    [[ "$(basename "$proj")" == "$name.csproj" ]] || continue
    apps+=("$name")
done
if [[ ${#apps[@]} -eq 0 ]]; then
    echo "build.sh: no apps found under $here" >&2
    exit 1
fi

for name in "${apps[@]}"; do
    if [[ "${CLRSCOPE_APPS_FORCE:-0}" != 1 ]] && up_to_date "$name"; then
        echo "$name: up to date ($out/$name/$name.dll)"
        continue
    fi
    log="$(mktemp)"
    if ! dotnet build -nologo -v q -c Release \
            -o "$out/$name" \
            "-p:ClrscopeObjRoot=$objroot" \
            "$here/$name/$name.csproj" >"$log" 2>&1; then
        echo "$name: BUILD FAILED" >&2
        cat "$log" >&2
        rm -f "$log"
        exit 1
    fi
    rm -f "$log"
    for f in "$out/$name/$name.dll" "$out/$name/$name"; do
        if [[ ! -f "$f" ]]; then
            echo "$name: build succeeded but $f is missing" >&2
            exit 1
        fi
    done
    # MSBuild keeps the dll's timestamp when it did not need to recompile; touch
    # the outputs so the up-to-date check above holds next time.
    touch "$out/$name/$name.dll" "$out/$name/$name"
    echo "$name: built $out/$name/$name.dll"
done
