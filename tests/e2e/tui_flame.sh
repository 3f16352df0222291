# The flame graph view in tmux: the 3:1 demo (CpuRatio) shows its two
# callers Heavy and Light side by side under Run, their widths in the true
# ratio within 15% (200 columns and 6,000 samples: a column is 2% of Light's
# width, the sampling spread of the ratio about 2%); a click selects a frame; '/' finds one, Enter zooms into it (its block takes the whole
# width, the breadcrumb shows the path), u and Backspace zoom out.
source "$CLRSCOPE_TESTLIB"
source "$(dirname "$CLRSCOPE_TESTLIB")/tuilib.sh"

expect_status 0 "record CpuRatio at 1 kHz" -- clrscope record -o "$WORK/s" --rate 1000 -- dotnet "$(app CpuRatio)" 6
columns=200
tui_start "$CLRSCOPE_BIN open $WORK/s" $columns
expect_screen "1 Functions" 10 "the session opens"
tm send-keys -t ui f
expect_screen "samples, 100.0% of all" 5 "f shows the flame graph, the root selected"

# widths: from the start of Heavy's name to the start of Light's, and from
# there to the end of Light's block (its right edge mark)
widths=$(screen | python3 -c '
import sys
for line in sys.stdin:
    h, l = line.find("Worker.Heavy"), line.find("Worker.Light")
    if 0 <= h < l:
        end = line.find("\u2595", l)
        print(l - h, end + 1 - l)
        break
')
read -r heavy light <<<"${widths:-0 0}"
check "heavy > 0 and light > 0" "Heavy and Light are side by side on one line" heavy="$heavy" light="$light"
check "abs(heavy / max(light, 1) - 3.0) <= 0.45" "their widths are 3:1 within 15%" heavy="$heavy" light="$light"

# a click on Light's block selects it (SGR mouse: column and line, 1-based)
at=$(screen | python3 -c '
import sys
for y, line in enumerate(sys.stdin, 1):
    x = line.find("Worker.Light")
    if x >= 0:
        print(x + 3, y)
        break
')
read -r x y <<<"${at:-1 1}"
tm send-keys -t ui -l $'\e[<0;'"$x;$y"'M'$'\e[<0;'"$x;$y"'m'
expect_screen "Clrscope.TestApps.Program+Worker.Light: " 5 "a click on Light's block selects it"

# search, zoom in, zoom out
tm send-keys -t ui /
sleep 0.3
tm send-keys -t ui "Worker.Heavy" Enter
# (exactly one block: a sample of the runtime's background compiler at work
# on Heavy does not show it as a second one, called from native code)
expect_screen "1 frame match 'Worker.Heavy'" 5 "/ finds Heavy, once"
expect_screen "Clrscope.TestApps.Program+Worker.Heavy: " 5 "and selects it"
tm send-keys -t ui Enter
expect_screen "Worker.Run › Worker.Heavy" 5 "Enter zooms into Heavy: the breadcrumb shows the path"
zoomed=$(screen | python3 -c '
import sys
lines = sys.stdin.read().split("\n")
row = [l for l in lines[2:] if l.startswith("Worker.Heavy")]
print(len(row[0].rstrip()) if row else 0, sum("Worker.Light" in l for l in lines))
')
read -r width lights <<<"$zoomed"
check "w == columns and n == 0" "Heavy's block spans the whole width, Light is gone" w="$width" n="$lights" \
	columns="$columns"
tm send-keys -t ui u
if wait_screen "Worker.Light" 5 && ! screen | grep -q "› Worker.Heavy"; then
	pass "u zooms out: Light is back"
else
	fail "after u: $(screen)"
fi
tm send-keys -t ui Enter
expect_screen "› Worker.Heavy" 5 "Enter zooms in again"
tm send-keys -t ui BSpace
if wait_screen "Worker.Light" 5; then pass "Backspace zooms out"; else fail "after Backspace: $(screen)"; fi
tm send-keys -t ui : ; sleep 0.2
tm send-keys -t ui "view functions" Enter
expect_screen "self% total%" 5 "':view functions' leaves the flame graph"
tm send-keys -t ui : ; sleep 0.2
tm send-keys -t ui "flame" Enter
expect_screen "Worker.Light" 5 "':flame' shows it again"
tm send-keys -t ui q
expect_screen "EXITED 0" 10 "q leaves"
finish
