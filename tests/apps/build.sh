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
# Then, for each other .NET runtime the tests cover (RUNTIMES below), publishes
# the apps its tests run (RUNTIME_APPS) self-contained, with that runtime inside:
#   dotnet publish -r linux-x64 --self-contained -f TFM -o OUTDIR/TFM/<Name> ...
# producing OUTDIR/TFM/<Name>/<Name> (run it directly).  The runtime comes from
# its NuGet pack; where that cannot be fetched, the build goes on and
# OUTDIR/TFM/unavailable says why (the tests of that runtime report a skip).
# It is tried again once an input changes, or with CLRSCOPE_APPS_FORCE=1.
#
# obj/ and bin/ go to OUTDIR/.obj/ (see Directory.Build.props), never into the
# source tree. An app whose outputs are newer than all of its inputs is skipped
# without starting dotnet, so a rebuild with nothing changed takes well under a second.
# Set CLRSCOPE_APPS_FORCE=1 to always invoke dotnet (MSBuild's own incremental
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
RUNTIMES=(net8.0 net9.0)
RUNTIME_APPS=(Shapes Spin Graph Async)

# newer_than_inputs NAME FILE...: true when every FILE exists and is newer
# than every input of app NAME.
newer_than_inputs() {
    local name="$1" f o
    shift
    for o in "$@"; do
        [[ -e "$o" ]] || return 1
    done
    for f in "${shared[@]}" "$here/$name/$name.csproj" "$here/$name"/*.cs; do
        [[ -e "$f" ]] || continue
        for o in "$@"; do
            [[ "$f" -nt "$o" ]] && return 1
        done
    done
    return 0
}

# up_to_date NAME DIR: true when the app's outputs in DIR are newer than its inputs.
up_to_date() {
    [[ "${CLRSCOPE_APPS_FORCE:-0}" != 1 && -x "$2/$1" && -f "$2/$1.runtimeconfig.json" ]] &&
        newer_than_inputs "$1" "$2/$1.dll" "$2/$1"
}

# built NAME DIR: checks that dotnet made the app's outputs in DIR, and
# touches them (MSBuild keeps a dll's timestamp when it did not need to
# recompile) so that up_to_date holds next time.
built() {
    local f
    for f in "$2/$1.dll" "$2/$1"; do
        if [[ ! -f "$f" ]]; then
            echo "$1: build succeeded but $f is missing" >&2
            exit 1
        fi
    done
    touch "$2/$1.dll" "$2/$1"
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

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for name in "${apps[@]}"; do
    if up_to_date "$name" "$out/$name"; then
        echo "$name: up to date ($out/$name/$name.dll)"
        continue
    fi
    if ! dotnet build -nologo -v q -c Release \
            -o "$out/$name" \
            "-p:ClrscopeObjRoot=$objroot" \
            "$here/$name/$name.csproj" >"$log" 2>&1; then
        echo "$name: BUILD FAILED" >&2
        cat "$log" >&2
        exit 1
    fi
    built "$name" "$out/$name"
    echo "$name: built $out/$name/$name.dll"
done

# A runtime pack that cannot be fetched fails the restore with one of these.
unfetchable='error (NU1[0-9]{3}|NETSDK1112|NETSDK1094):'
for tfm in "${RUNTIMES[@]}"; do
    unavailable="$out/$tfm/unavailable"
    if [[ -f "$unavailable" && "${CLRSCOPE_APPS_FORCE:-0}" != 1 ]] &&
            newer_than_inputs "${RUNTIME_APPS[0]}" "$unavailable"; then
        echo "$tfm: unavailable ($unavailable)"
        continue
    fi
    rm -f "$unavailable"
    for name in "${RUNTIME_APPS[@]}"; do
        dir="$out/$tfm/$name"
        if up_to_date "$name" "$dir"; then
            echo "$tfm/$name: up to date ($dir/$name)"
            continue
        fi
        if ! dotnet publish -nologo -v q -c Release -r linux-x64 --self-contained \
                -f "$tfm" "-p:TargetFrameworks=$tfm" -o "$dir" \
                "-p:ClrscopeObjRoot=$objroot$tfm/" \
                "$here/$name/$name.csproj" >"$log" 2>&1; then
            if ! grep -qE "$unfetchable" "$log"; then
                echo "$tfm/$name: BUILD FAILED" >&2
                cat "$log" >&2
                exit 1
            fi
            mkdir -p "$out/$tfm"
            {
                echo "the $tfm runtime could not be fetched: dotnet publish of $name said"
                grep -oE "$unfetchable.*" "$log" | sort -u | head -5
                echo "(build.sh tries again once an input changes, or with CLRSCOPE_APPS_FORCE=1)"
            } >"$unavailable"
            echo "$tfm: unavailable, its tests will be skipped ($unavailable)"
            break
        fi
        built "$name" "$dir"
        echo "$tfm/$name: built $dir/$name"
    done
done
