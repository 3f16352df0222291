# The man pages are clean mdoc, and every subcommand and option that
# clrscope --help shows is in them.
source "$CLRSCOPE_TESTLIB"
man=$(cd "$(dirname "$CLRSCOPE_TESTLIB")/../../man" && pwd)
for page in "$man/clrscope.1" "$man/clrscope-session.5"; do
	lint=$(mandoc -T lint -W warning "$page" 2>&1) && [[ -z "$lint" ]] && pass "mandoc lint: $(basename "$page")" ||
		fail "mandoc lint $(basename "$page"): $lint"
done
rendered=$(mandoc -T utf8 "$man/clrscope.1" | sed 's/.\x08//g')
commands=$(clrscope --help | awk '/^commands:/ {on=1; next} on && /^  [a-z]/ {print $1} /^$/ && on {on=0}')
[[ -n "$commands" ]] || fail "no commands in clrscope --help"
for c in $commands; do
	expect_contains "$rendered" "clrscope $c" "man page has the $c command"
	help=$(clrscope "$c" --help)
	for opt in $(grep -oE -- '--[a-z][a-z-]+' <<<"$help" | sort -u); do
		expect_contains "$rendered" "$opt" "man page has $c $opt"
	done
	for opt in $(grep -oE -- '(^|[ ,])-[a-zA-Z]\b' <<<"$help" | tr -d ' ,' | sort -u); do
		expect_contains "$rendered" "$opt" "man page has $c $opt"
	done
done
# every prompt command of the terminal UI
for c in $(clrscope help keys | awk 'NR > 1 && $0 ~ /:[a-z]/ {for (i = 1; i <= NF; i++) if ($i ~ /^:[a-z]+$/) print substr($i, 2)}'); do
	expect_contains "$rendered" "$c" "man page has the prompt command $c"
done
# every help text ends its last line
for c in "" $commands; do
	last=$(clrscope $c --help | tail -c 1 | od -An -c | tr -d ' ')
	[[ "$last" == '\n' ]] && pass "clrscope $c --help ends with a newline" || fail "clrscope $c --help ends with '$last'"
done
for opt in --help --version; do
	expect_contains "$rendered" "$opt" "man page has $opt"
done
finish
