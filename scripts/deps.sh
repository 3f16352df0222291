#!/usr/bin/env bash
# Installs what building and testing clrscope needs, from Debian's packages.
# Safe to run again: apt-get skips what is already there.
set -euo pipefail

packages=(
	build-essential cmake pkg-config        # the build
	clang libclang-rt-14-dev                # fuzzers and sanitizers
	libncursesw5-dev libreadline-dev libinotifytools0-dev  # the terminal UI
	mandoc tmux python3 binutils            # tests: man page lint, TUI driving, JSON checks, nm/readelf
	wrk                                     # tests and benchmarks: load on a web app over the loopback
	hey                                     # tests and benchmarks: a fixed rate of requests (exact_stacks, bench/server.sh)
	dpkg-dev                                # cpack -G DEB: dpkg-shlibdeps computes Depends
	libprotobuf-c-dev protobuf-c-compiler zlib1g-dev  # report --format pprof: profile.proto, gzip
	libelf-dev                              # report: native functions' names from their modules
	libdebuginfod-dev                       # report: debug files from debuginfod servers (DEBUGINFOD_URLS)
	debuginfod                              # tests: a local debuginfod server (e2e.debuginfod)
	libzydis-dev                            # tests: Zydis checks the agent's own x86 decoder
	golang-go                               # tests: 'go tool pprof' reads the pprof export
	libcap2-bin passwd                      # tests: setcap (a privileged process), useradd (another user)
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	echo "clrscope: installing ${missing[*]}" >&2
	sudo=()
	[[ $(id -u) == 0 ]] || sudo=(sudo)
	"${sudo[@]}" apt-get update -qq
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# node and npm check the speedscope export against speedscope's own schema
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "clrscope: installing nodejs npm" >&2
	sudo=()
	[[ $(id -u) == 0 ]] || sudo=(sudo)
	"${sudo[@]}" apt-get update -qq
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi

if ! command -v dotnet >/dev/null; then
	echo "clrscope: the .NET SDK (dotnet) is needed to build the test and demo apps; install it first" >&2
	exit 1
fi
