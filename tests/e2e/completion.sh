# The bash completion (scripts/completion/clrscope.bash) offers what
# clrscope's own --help lists: subcommands, options, report formats, event
# kinds, dial keys, help topics, directories and the pids of .NET processes.
source "$CLRSCOPE_TESTLIB"
completion=$(cd "$(dirname "$CLRSCOPE_TESTLIB")/../.." && pwd)/scripts/completion/clrscope.bash
[[ -f "$completion" ]] || { fail "missing $completion"; finish; }
bin=$CLRSCOPE_BIN
export PATH="$(dirname "$bin"):$PATH"

# tab LINE: what TAB at the end of LINE offers, sorted, one a line. A fresh
# bash sources the completion and calls it the way bash would: COMP_WORDS split
# at blanks and at COMP_WORDBREAKS' = and : (events=gc is three words).
tab() {
	bash --norc --noprofile -c '
		source "$1" || exit 2
		line=$2
		COMP_LINE=$line
		COMP_POINT=${#line}
		COMP_WORDS=()
		read -ra blank_words <<<"$line"
		for w in "${blank_words[@]}"; do
			while [[ $w =~ ^([^=:]*)([=:]+)(.*)$ ]]; do
				[[ -n ${BASH_REMATCH[1]} ]] && COMP_WORDS+=("${BASH_REMATCH[1]}")
				COMP_WORDS+=("${BASH_REMATCH[2]}")
				w=${BASH_REMATCH[3]}
			done
			[[ -n $w ]] && COMP_WORDS+=("$w")
		done
		[[ $line == *[[:space:]] ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMPREPLY=()
		_clrscope "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		((${#COMPREPLY[@]} == 0)) || printf "%s\n" "${COMPREPLY[@]}"
	' tab "$completion" "$1" | sort -u
}

# offers LINE DESCRIPTION WORD...: TAB at the end of LINE offers every WORD.
offers() {
	local line=$1 what=$2 got missing=() w
	shift 2
	got=$(tab "$line")
	for w in "$@"; do
		grep -qxF -- "$w" <<<"$got" || missing+=("$w")
	done
	if ((${#missing[@]} == 0 && $# > 0)); then
		pass "$what"
	else
		fail "$what: '${line#"$bin"}<TAB>' lacks ${missing[*]:-(nothing wanted)}; it offers: $(tr '\n' ' ' <<<"$got")"
	fi
}

# offers_only LINE DESCRIPTION WORD...: TAB offers the WORDs and nothing else.
offers_only() {
	local line=$1 what=$2 got want
	shift 2
	got=$(tab "$line")
	want=$(printf '%s\n' "$@" | sort -u)
	if [[ "$got" == "$want" ]]; then
		pass "$what"
	else
		fail "$what: '${line#"$bin"}<TAB>' offers: $(tr '\n' ' ' <<<"$got"); wanted: $(tr '\n' ' ' <<<"$want")"
	fi
}

registered=$(bash --norc --noprofile -c 'source "$1" && complete -p clrscope' - "$completion" 2>&1) || true
expect_contains "$registered" "-F _clrscope clrscope" "sourcing the file registers the completion for clrscope"

commands=$(clrscope --help | awk '/^commands:/ {on = 1; next} on && /^$/ {exit} on && /^  [a-z]/ {print $1}')
[[ -n "$commands" ]] || fail "no commands in clrscope --help"
offers "$bin " "clrscope <TAB> offers every subcommand of clrscope --help, and help" $commands help
offers_only "$bin rep" "clrscope rep<TAB> offers report only" report
offers "$bin -" "clrscope -<TAB> offers --help and --version" --help --version

for c in $commands; do
	opts=$(clrscope "$c" --help | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u)
	offers "$bin $c --" "clrscope $c --<TAB> offers every long option of clrscope $c --help" $opts
done

# every format that clrscope report --help names (speedscope and pprof only when it does)
report_help=$(clrscope report --help)
formats=()
for f in text collapsed json speedscope pprof; do
	grep -qw -- "$f" <<<"$report_help" && formats+=("$f")
done
[[ " ${formats[*]} " == *" text collapsed json "* ]] || fail "clrscope report --help lacks text, collapsed or json: ${formats[*]}"
offers_only "$bin report --format " "clrscope report --format <TAB> offers the formats of clrscope report --help (${formats[*]})" "${formats[@]}"
offers_only "$bin report -f " "clrscope report -f <TAB> offers the same" "${formats[@]}"
offers_only "$bin report --format=c" "clrscope report --format=c<TAB> offers collapsed" collapsed

kinds=(gc exceptions jit modules threads contention waits threadpool allocsamples all none)
offers_only "$bin record --events " "clrscope record --events <TAB> offers the event kinds" "${kinds[@]}"
offers_only "$bin launch -e " "clrscope launch -e <TAB> offers the event kinds" "${kinds[@]}"
offers_only "$bin record --events gc,j" "clrscope record --events gc,j<TAB> completes the list's last item" gc,jit

mkdir -p "$WORK/sessions/one" "$WORK/sessions/two"
touch "$WORK/sessions/not-a-dir"
offers_only "$bin report $WORK/sessions/" "clrscope report <TAB> offers directories" "$WORK/sessions/one" "$WORK/sessions/two"
offers_only "$bin open $WORK/sessions/o" "clrscope open <TAB> offers directories" "$WORK/sessions/one"
offers_only "$bin report --top 5 $WORK/sessions/t" "clrscope report --top 5 <TAB> skips the option's value" "$WORK/sessions/two"
offers_only "$bin record -o $WORK/sessions/o" "clrscope record -o <TAB> offers directories" "$WORK/sessions/one"

dials=(sampling=on sampling=off sampler=mixed sampler=kernel sampler=suspend sampler=signal rate= events= flush_ms= instrument=on instrument=off
	allocations=on allocations=off snapshot=heap snapshot=awaits validate= async=on async=off detach)
offers_only "$bin dial $WORK/sessions/one " "clrscope dial DIR <TAB> offers the dial keys" "${dials[@]}"
offers_only "$bin dial $WORK/sessions/one rate=1000 sa" "clrscope dial DIR rate=1000 sa<TAB> offers sampling=on|off and sampler=..." sampling=on sampling=off sampler=mixed sampler=kernel sampler=suspend sampler=signal
# readline replaces only the text after '=': the candidates are what follows it
offers_only "$bin dial $WORK/sessions/one events=-j" "clrscope dial DIR events=-j<TAB> offers -jit" -jit
offers_only "$bin dial $WORK/sessions/o" "clrscope dial <TAB> offers directories" "$WORK/sessions/one"

offers "$bin help " "clrscope help <TAB> offers keys and every subcommand" keys $commands
offers_only "$bin help k" "clrscope help k<TAB> offers keys" keys

# pids: a running .NET process is offered to attach, record --pid and dial
dotnet "$(app Spin)" 30 >/dev/null 2>&1 &
spin=$!
CHILDREN+=("$spin")
for _ in $(seq 100); do
	clrscope ps --json 2>/dev/null | grep -q "\"pid\": $spin," && break
	sleep 0.1
done
offers "$bin attach " "clrscope attach <TAB> offers the pid of a running .NET process" "$spin"
offers "$bin record --pid " "clrscope record --pid <TAB> offers it" "$spin"
offers "$bin report --pid=" "clrscope report --pid=<TAB> offers it" "$spin"
offers "$bin dial " "clrscope dial <TAB> offers it" "$spin"
kill "$spin" 2>/dev/null || true
wait "$spin" 2>/dev/null || true
finish
