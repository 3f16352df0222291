# The man pages are clean mdoc: clrscope(1) is the overview and the terminal
# UI, clrscope-CMD(1) documents each command that clrscope --help lists, with
# every option its --help shows, and every cross-reference names a page that
# exists.
source "$CLRSCOPE_TESTLIB"
man=$(cd "$(dirname "$CLRSCOPE_TESTLIB")/../../man" && pwd)
render() { mandoc -T utf8 "$1" | sed 's/.\x08//g'; }
# section NAME: the rendered lines of one section, from its heading to the next
section() { awk -v s="$1" '/^[A-Z]/ {on = ($0 == s)} on'; }

pages=("$man"/*.[0-9])
((${#pages[@]} > 1)) || fail "no man pages in $man"
for page in "${pages[@]}"; do
	lint=$(mandoc -T lint -W warning "$page" 2>&1) && [[ -z "$lint" ]] && pass "mandoc lint: $(basename "$page")" ||
		fail "mandoc lint $(basename "$page"): $lint"
done

overview=$(render "$man/clrscope.1")
commands=$(clrscope --help | awk '/^commands:/ {on=1; next} on && /^  [a-z]/ {print $1} /^$/ && on {on=0}')
[[ -n "$commands" ]] || fail "no commands in clrscope --help"
for c in $commands; do
	page="$man/clrscope-$c.1"
	if [[ ! -f "$page" ]]; then
		fail "no page clrscope-$c.1 for the command $c"
		continue
	fi
	expect_contains "$overview" "clrscope $c" "clrscope(1) has the $c command"
	expect_contains "$overview" "clrscope-$c(1)" "clrscope(1) points to clrscope-$c(1)"
	rendered=$(render "$page")
	expect_contains "$rendered" "clrscope $c" "clrscope-$c(1) shows the command"
	# the options of --help are the leading words of its lines that start
	# with a hyphen ("  -o, --output DIR", "      --pause"); one is documented
	# when a list item of the page starts with it ("     -o dir, --output dir")
	opts=$(clrscope "$c" --help | awk '/^ +-/ {for (i = 1; i <= NF && $i ~ /^-(-[a-z]|[a-zA-Z])/; i++) {sub(/,$/, "", $i); print $i}}' | sort -u)
	[[ -n "$opts" ]] || fail "no options in clrscope $c --help"
	for opt in $opts; do
		grep -qE -- "^ {5}(-[A-Za-z]( [a-z]+)?, )?$opt([ ,]|\$)" <<<"$rendered" &&
			pass "clrscope-$c(1) documents $opt" || fail "clrscope-$c(1) has no item for $c $opt"
	done
done
# no page for a command that is gone
for page in "$man"/clrscope-*.1; do
	c=$(basename "$page" .1)
	c=${c#clrscope-}
	grep -qxF "$c" <<<"$commands" && pass "clrscope-$c.1 is a command's page" ||
		fail "clrscope-$c.1 has no command in clrscope --help"
done
# every cross-reference to a clrscope page names one that exists
for page in "${pages[@]}"; do
	for ref in $(awk '$1 == ".Xr" && $2 ~ /^clrscope/ {print $2 "." $3}' "$page" | sort -u); do
		[[ -f "$man/$ref" ]] && pass "$(basename "$page") refers to $ref, which exists" ||
			fail "$(basename "$page") refers to $ref, which is not in $man"
	done
done
# every prompt command of the terminal UI has an item in PROMPT COMMANDS
prompt=$(section "PROMPT COMMANDS" <<<"$overview")
for c in $(clrscope help keys | awk 'NR > 1 && $0 ~ /:[a-z]/ {for (i = 1; i <= NF; i++) if ($i ~ /^:[a-z]+$/) print substr($i, 2)}'); do
	grep -qE "^ {5}$c( |\$)" <<<"$prompt" && pass "clrscope(1) has the prompt command $c" ||
		fail "clrscope(1) PROMPT COMMANDS has no item for $c"
done
# every help text ends its last line
for c in "" $commands; do
	last=$(clrscope $c --help | tail -c 1 | od -An -c | tr -d ' ')
	[[ "$last" == '\n' ]] && pass "clrscope $c --help ends with a newline" || fail "clrscope $c --help ends with '$last'"
done
for opt in --help --version; do
	expect_contains "$overview" "$opt" "clrscope(1) has $opt"
done
finish
