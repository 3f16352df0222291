# bash completion for clrscope(1)                          -*- shell-script -*-
#
# Installed as share/bash-completion/completions/clrscope; to try it from the
# source tree: source scripts/completion/clrscope.bash
#
# The subcommands, their options, which options take a value, the report
# formats and the dial keys are read from clrscope's own --help output when
# TAB is pressed, so this file follows the clrscope it completes.  It needs
# nothing from the bash-completion package.

# The clrscope being completed: the word typed, if it runs, else the one on PATH.
_clrscope_bin() {
	local b=${COMP_WORDS[0]:-clrscope}
	[[ $b == "~/"* ]] && b=$HOME/${b#"~/"}
	if [[ $b == */* ]]; then
		[[ -x $b ]] || b=clrscope
	else
		type -P -- "$b" >/dev/null 2>&1 || b=clrscope
	fi
	printf '%s\n' "$b"
}

# _clrscope_help BIN [CMD]: the help text of clrscope or of one subcommand.
_clrscope_help() {
	local bin=$1
	shift
	"$bin" "$@" --help 2>/dev/null </dev/null
}

# The names under "commands:" in clrscope --help.
_clrscope_commands() {
	_clrscope_help "$1" | awk '/^commands:/ { on = 1; next }
		on && /^$/ { exit }
		on && /^  [a-z]/ { print $1 }'
}

# The options of a subcommand, one a line: "LONG SHORT TAKES_VALUE", from
# lines like "  -o, --output DIR   ..." and "      --pause   ...".
_clrscope_optspec() {
	_clrscope_help "$1" "$2" | awk '/^ +-/ {
		short = ""; long = ""; arg = 0
		for (i = 1; i <= NF; i++) {
			w = $i; sub(/,$/, "", w)
			if (w ~ /^--[a-z][a-z0-9-]*$/) { long = w; if ($(i + 1) ~ /^[A-Z][A-Z_]*$/) arg = 1; break }
			else if (w ~ /^-[a-zA-Z0-9]$/) short = w
			else break
		}
		if (long != "") print long, (short == "" ? "-" : short), arg
	}'
}

# The --format values that clrscope report --help names: "--format a|b|c" in
# its usage line, else the words followed by " (" in the description of
# --format ("text (top functions...), collapsed (folded stacks...) or json
# (...)"), else the known formats that the help mentions.
_clrscope_formats() {
	local help f
	help=$(_clrscope_help "$1" report)
	f=$(grep -oE -- '--format [a-z|]+' <<<"$help" | head -n1)
	if [[ $f == *"|"* ]]; then
		f=${f#--format }
		printf '%s\n' ${f//|/ }
		return
	fi
	f=$(awk '/^ +(-[a-zA-Z], )?--format/ { on = 1; sub(/^.*--format +[A-Z]+/, "") }
		on && /^ +-/ && !/--format/ { exit }
		on { printf " %s", $0 }' <<<"$help" | tr -s ' ' | grep -oE '[ ,][a-z][a-z0-9-]* \(' | grep -oE '[a-z][a-z0-9-]*')
	if [[ -n $f ]]; then
		printf '%s\n' $f
		return
	fi
	for f in text collapsed json speedscope pprof; do
		grep -qw -- "$f" <<<"$help" && printf '%s\n' "$f"
	done
}

_clrscope_event_kinds="gc exceptions jit modules threads contention waits threadpool allocsamples all none"

# The KEY=VALUE words of clrscope dial --help's "dials:" list: "sampling=on|off"
# gives sampling=on and sampling=off, "rate=HZ" gives rate=, "detach" detach.
_clrscope_dial_keys() {
	local keys
	keys=$(_clrscope_help "$1" dial | awk '/^dials:/ { on = 1; next }
		on && /^$/ { exit }
		on && /^  [a-z_]/ {
			w = $1
			if (w !~ /=/) { print w; next }
			key = substr(w, 1, index(w, "=")); value = substr(w, index(w, "=") + 1)
			if (value ~ /^[a-z|]+$/) { n = split(value, v, "|"); for (i = 1; i <= n; i++) print key v[i] }
			else print key
		}')
	[[ -n $keys ]] || keys="sampling=on sampling=off rate= events= flush_ms= detach"
	printf '%s\n' $keys
}

# The pids of the user's running .NET processes: clrscope ps --json, or, from
# a clrscope without it, pgrep.
_clrscope_pids() {
	local json
	if json=$("$1" ps --json 2>/dev/null </dev/null); then
		grep -oE '\{"pid": *[0-9]+' <<<"$json" | grep -oE '[0-9]+$'
	else
		pgrep -u "$(id -u)" dotnet 2>/dev/null
	fi
}

# _clrscope_list CUR WORD...: completes the last item of a comma-separated
# list of event kinds, each perhaps with a + or - before it.
_clrscope_list() {
	local cur=$1 head="" item sign="" k
	shift
	if [[ $cur == *,* ]]; then
		head=${cur%,*},
		item=${cur##*,}
	else
		item=$cur
	fi
	if [[ $item == [+-]* ]]; then
		sign=${item:0:1}
		item=${item:1}
	fi
	for k in "$@"; do
		[[ $k == "$item"* ]] && printf '%s\n' "$head$sign$k"
	done
}

# Sets words, cword and cur from COMP_WORDS, putting back together what bash
# split at the COMP_WORDBREAKS characters (events=gc is one word here, three
# in COMP_WORDS) by looking at COMP_LINE for the blanks between words.
_clrscope_reassemble() {
	words=()
	cword=0
	local line=${COMP_LINE-} pos=0 i w joined
	for ((i = 0; i < ${#COMP_WORDS[@]} && i <= COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		joined=0
		if [[ -n $line ]]; then
			if ((i > 0)) && [[ ${line:pos:1} != [[:space:]] && -n ${line:pos:1} ]]; then
				joined=1
			fi
			while [[ ${line:pos:1} == [[:space:]] ]]; do pos=$((pos + 1)); done
			pos=$((pos + ${#w}))
		fi
		if ((joined)); then
			words[${#words[@]} - 1]+=$w
		else
			words+=("$w")
		fi
	done
	cword=$((${#words[@]} - 1))
	cur=${words[cword]-}
}

# _clrscope_reply CANDIDATE...: the candidates that start with $cur, in
# COMPREPLY, each less the part of $cur before its last COMP_WORDBREAKS
# character (readline replaces only the text after it).
_clrscope_reply() {
	local c strip="" i ch breaks=${COMP_WORDBREAKS-$' \t\n"\'><=;|&(:'}
	for ((i = ${#cur} - 1; i >= 0; i--)); do
		ch=${cur:i:1}
		if [[ $ch != [[:space:]] && $breaks == *"$ch"* ]]; then
			strip=${cur:0:i+1}
			break
		fi
	done
	for c in "$@"; do
		[[ $c == "$cur"* ]] && COMPREPLY+=("${c#"$strip"}")
	done
	for c in "${COMPREPLY[@]}"; do
		if [[ $c == *[=,] ]]; then
			compopt -o nospace 2>/dev/null
			break
		fi
	done
	return 0
}

_clrscope_dirs() {
	compopt -o filenames 2>/dev/null
	local IFS=$'\n'
	COMPREPLY+=($(compgen -d -- "$cur"))
}

# _clrscope_value BIN LONG: completes the value of option LONG in $cur, which
# may carry a prefix (as in --format=js) that is kept in the candidates.
_clrscope_value() {
	local bin=$1 opt=$2 prefix="" value=$cur
	if [[ $cur == --*=* ]]; then
		prefix=${cur%%=*}=
		value=${cur#*=}
	fi
	local -a c=()
	case $opt in
	--output | --symbols)
		if [[ -z $prefix ]]; then
			_clrscope_dirs
		else
			local d
			while IFS= read -r d; do c+=("$prefix$d/"); done < <(compgen -d -- "$value")
			compopt -o nospace 2>/dev/null
		fi
		;;
	--events) mapfile -t c < <(_clrscope_list "$value" $_clrscope_event_kinds) ;;
	--sampler) mapfile -t c < <(compgen -W "mixed kernel suspend signal" -- "$value") ;;
	--format) mapfile -t c < <(_clrscope_formats "$bin") ;;
	--pid) mapfile -t c < <(_clrscope_pids "$bin") ;;
	*) return 0 ;; # a number, or nothing to offer
	esac
	_clrscope_reply "${c[@]/#/$prefix}"
}

_clrscope() {
	local -a words
	local cword cur
	COMPREPLY=()
	_clrscope_reassemble
	local bin
	bin=$(_clrscope_bin)

	if ((cword == 1)); then
		if [[ $cur == -* ]]; then
			_clrscope_reply --help --version
		else
			_clrscope_reply $(_clrscope_commands "$bin") help
		fi
		return 0
	fi

	local cmd=${words[1]}
	case $cmd in
	help)
		((cword == 2)) && _clrscope_reply $(_clrscope_commands "$bin") keys
		return 0
		;;
	-* | "") return 0 ;;
	esac

	# What the subcommand's help says about its options.
	local -A takes=() short2long=()
	local -a longs=()
	local long short arg
	while read -r long short arg; do
		longs+=("$long")
		takes[$long]=$arg
		[[ $short != - ]] && short2long[$short]=$long
	done < <(_clrscope_optspec "$bin" "$cmd")
	((${#longs[@]})) || return 0 # not a subcommand

	# Walk the words before the cursor: options, their values, positionals.
	local i w npos=0 dashdash=0 expect=""
	for ((i = 2; i < cword; i++)); do
		w=${words[i]}
		if [[ -n $expect ]]; then
			expect=""
			continue
		fi
		if ((dashdash)) || [[ $w != -* || $w == - ]]; then
			npos=$((npos + 1))
			# launch, attach and record stop at the first non-option word
			[[ $cmd == launch || $cmd == record ]] && dashdash=1
			continue
		fi
		if [[ $w == -- ]]; then
			dashdash=1
			continue
		fi
		[[ $w == --*=* ]] && continue
		long=$w
		[[ $w != --* ]] && long=${short2long[$w]-}
		[[ -n $long && ${takes[$long]-0} == 1 ]] && expect=$long
	done

	if [[ -n $expect ]]; then
		_clrscope_value "$bin" "$expect"
		return 0
	fi
	if ((!dashdash)) && [[ $cur == --*=* ]]; then
		_clrscope_value "$bin" "${cur%%=*}"
		return 0
	fi
	if ((!dashdash)) && [[ $cur == -* ]]; then
		case $cmd in
		launch | record) _clrscope_reply "${longs[@]}" -- ;;
		*) _clrscope_reply "${longs[@]}" ;;
		esac
		return 0
	fi

	case $cmd in
	launch | record)
		# the program to run: a command, or a path; then its arguments: files
		local IFS=$'\n'
		if ((npos == 0)) && [[ $cur != */* ]]; then
			COMPREPLY=($(compgen -c -- "$cur"))
		else
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		;;
	attach)
		((npos == 0)) && _clrscope_reply $(_clrscope_pids "$bin")
		;;
	open | report)
		((npos == 0)) && _clrscope_dirs
		;;
	dial)
		if ((npos == 0)); then
			_clrscope_reply $(_clrscope_pids "$bin")
			_clrscope_dirs
		elif [[ $cur == events=* ]]; then
			local -a c
			mapfile -t c < <(_clrscope_list "${cur#events=}" $_clrscope_event_kinds)
			_clrscope_reply "${c[@]/#/events=}"
		else
			_clrscope_reply $(_clrscope_dial_keys "$bin")
		fi
		;;
	esac
	return 0
}

complete -F _clrscope clrscope
