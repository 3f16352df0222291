# Shared by the bench/*.sh scripts (sourced, not run): the usage text,
# option parsing, the build directory and its programs, the test apps, a
# work directory removed at exit, and waiting for a program's output.
#
# A script declares its options as a getopts spec (plus long names that
# stand for letters) and handles each in a function bench_opt LETTER ARG:
#
#   bench_opt() { case $1 in n) bench_uint runs -n "$2" ;; esac; }
#   bench_options "n:" "" "$@"; set -- "${bench_args[@]}"
#   bench_build "${1:-}"
#
# -h and --help print the script's header comment (its usage) and exit 0;
# a bad option or value prints what is wrong and the synopsis, and exits 2.

bench_here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench_cleanups=()
declare -A bench_running=() # pids of the programs bench_start started
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

# The calling script's header: its comment lines after the #! line.
bench_usage() {
	awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
}

# bench_usage_error MESSAGE: the message and the synopsis, then exit 2.
bench_usage_error() {
	echo "$(basename "$0"): $*" >&2
	bench_usage | awk '/^  bench\// { sub(/^ +/, "usage: "); print; exit }' >&2
	echo "('$0 -h' explains)" >&2
	exit 2
}

# bench_options SPEC LONGS ARGS...: getopts over ARGS with SPEC; LONGS is a
# space-separated list of NAME=LETTER for options spelt --NAME.  Calls
# bench_opt LETTER OPTARG per option; the operands are left in bench_args.
bench_options() {
	local spec=$1 longs=" $2 " opt a
	shift 2
	local args=()
	for a in "$@"; do
		case $a in
		--) args+=("$@"); break ;; # the rest are operands
		--help) args+=(-h) ;;
		--?*)
			[[ $longs == *" ${a#--}="?" "* ]] || bench_usage_error "unknown option $a"
			opt=${longs#*" ${a#--}="}
			args+=("-${opt:0:1}")
			;;
		*) args+=("$a") ;;
		esac
		shift
	done
	set -- "${args[@]}"
	OPTIND=1
	while getopts ":${spec}h" opt; do
		case $opt in
		h) bench_usage; exit 0 ;;
		:) bench_usage_error "-$OPTARG needs a value" ;;
		\?) bench_usage_error "unknown option -$OPTARG" ;;
		*) bench_opt "$opt" "${OPTARG-}" ;;
		esac
	done
	bench_args=("${@:OPTIND}")
}

# bench_uint VAR OPTION VALUE: sets VAR to VALUE, a positive whole number.
bench_uint() {
	[[ $3 =~ ^[1-9][0-9]*$ ]] || bench_usage_error "$2 wants a positive whole number, not '$3'"
	printf -v "$1" %s "$3"
}

# bench_count VAR OPTION VALUE: like bench_uint, and 0 is allowed.
bench_count() {
	[[ $3 =~ ^(0|[1-9][0-9]*)$ ]] || bench_usage_error "$2 wants a whole number, not '$3'"
	printf -v "$1" %s "$3"
}

# bench_uint_list VAR OPTION VALUE: sets VAR to the comma-separated positive
# numbers of VALUE, as words.
bench_uint_list() {
	[[ $3 =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || bench_usage_error "$2 wants numbers like 2,16,64, not '$3'"
	printf -v "$1" %s "${3//,/ }"
}

# bench_build [DIR]: the build directory (default build/) and its programs.
bench_build() {
	build=$(cd "${1:-$bench_here/build}" 2>/dev/null && pwd) ||
		{ echo "no build directory ${1:-$bench_here/build}: build first (cmake -S . -B build && cmake --build build)" >&2; exit 1; }
	clrscope=$build/bin/clrscope
	[[ -x $clrscope ]] || { echo "no $clrscope: build first (cmake -S . -B build && cmake --build build)" >&2; exit 1; }
}

# bench_tool NAME: a bench tool of the build (bench/NAME.c), checked.
bench_tool() {
	[[ -x $build/bench/$1 ]] || { echo "no $build/bench/$1: build it (cmake --build $build --target $1)" >&2; exit 1; }
	echo "$build/bench/$1"
}

# bench_need COMMAND HOW: the program COMMAND on PATH, or exit saying how to
# install it (HOW).
bench_need() {
	command -v "$1" >/dev/null || { echo "no $1: install it ($2)" >&2; exit 1; }
}

# bench_app NAME: the test app's dll, building the apps into BUILD/apps when missing.
bench_app() {
	local dll=$build/apps/$1/$1.dll
	[[ -f $dll ]] || "$bench_here/tests/apps/build.sh" "$build/apps" >&2
	echo "$dll"
}

# bench_workdir NAME: a fresh directory in $work, removed (after the
# programs bench_start started are stopped) when the script ends.
bench_workdir() {
	work=$(mktemp -d "/tmp/clrscope-$1-XXXXXX")
	bench_at_exit "rm -rf '$work'"
	trap bench_exit EXIT
	trap 'exit 130' INT TERM # so that the EXIT trap cleans up
}

# bench_at_exit COMMAND: run COMMAND when the script ends (last registered first).
bench_at_exit() {
	bench_cleanups=("$1" "${bench_cleanups[@]}")
}

bench_exit() {
	local pid c
	for pid in "${!bench_running[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	for c in "${bench_cleanups[@]}"; do
		eval "$c" || true
	done
}

# bench_start OUT COMMAND...: runs COMMAND in the background, its output in
# OUT and OUT.err; its pid in bench_pid.  Stopped at exit unless reaped.
bench_start() {
	local out=$1
	shift
	"$@" >"$out" 2>"$out.err" </dev/null &
	bench_pid=$!
	bench_running[$bench_pid]=1
}

# bench_reap PID: waits for a program bench_start started; its exit status.
bench_reap() {
	local rc=0
	wait "$1" || rc=$?
	unset "bench_running[$1]"
	return "$rc"
}

# bench_wait_line FILE REGEX SECONDS [PID]: waits for a line matching REGEX
# in FILE (a program's output); fails after SECONDS or when PID has ended.
bench_wait_line() {
	local file=$1 re=$2 limit=$3 pid=${4:-} i
	for ((i = 0; i < limit * 20; i++)); do
		grep -qE -- "$re" "$file" 2>/dev/null && return 0
		if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null; then
			grep -qE -- "$re" "$file" 2>/dev/null && return 0
			break
		fi
		sleep 0.05
	done
	echo "$(basename "$0"): no line matching '$re' in $file (after ${limit} s at most)" >&2
	return 1
}

# bench_sleep SECONDS: sleep that a signal interrupts at once (the traps run
# only between commands, and a wait is one they may cut short).
bench_sleep() {
	sleep "$1" &
	wait $! || true
}

# bench_pid_of FILE: the pid a test app announced ("pid N") in its output.
bench_pid_of() {
	awk '$1 == "pid" { print $2; exit }' "$1"
}

# bench_split_cpus: server_cpu and load_cpu, the commands that pin a
# server to CPU 0 and its load generator to CPU 1 (both empty on one CPU or
# without taskset).
bench_split_cpus() {
	server_cpu=() load_cpu=()
	if (($(nproc) >= 2)) && command -v taskset >/dev/null; then
		server_cpu=(taskset -c 0) load_cpu=(taskset -c 1)
	fi
}

# bench_webhash_pid PORT: the WebHash server listening on PORT, the dotnet
# process itself (not clrscope record, nor a shell): its pid, or nothing.
bench_webhash_pid() {
	local p pid=
	for p in $(pgrep -f "WebHash.dll $1 " || true); do
		[[ $(cat "/proc/$p/comm" 2>/dev/null) == dotnet ]] && pid=$p
	done
	echo "$pid"
}

# bench_cpu_ticks STAT: the CPU time (utime + stime, clock ticks) a
# /proc/PID/stat or /proc/PID/task/TID/stat file says so far (the fields
# after the name in parentheses, which may hold spaces).
bench_cpu_ticks() {
	awk '{ sub(/.*\) /, ""); print $12 + $13 }' "$1"
}

# bench_rss_kb PID: the process's resident set in KiB ("-" once it is gone).
bench_rss_kb() {
	local kb
	kb=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status" 2>/dev/null || true)
	echo "${kb:--}"
}

# bench_dotnet_tool NAME: a .NET global tool from NuGet (dotnet-trace,
# dotnet-gcdump), installed into BUILD/tools on first use; its path in
# tool.  Fails, saying why, when it cannot be installed.
bench_dotnet_tool() {
	tool=$build/tools/$1
	[[ -x $tool ]] && return 0
	echo "installing $1 into $build/tools (once)" >&2
	local log
	log=$(dotnet tool install --tool-path "$build/tools" "$1" 2>&1) && [[ -x $tool ]] && return 0
	echo "$1 could not be installed:" >&2
	tail -3 <<<"$log" >&2
	return 1
}

# bench_dotnet_trace: the reference tool, dotnet-trace; its path in trace.
bench_dotnet_trace() {
	bench_dotnet_tool dotnet-trace || return 1
	trace=$tool
}
