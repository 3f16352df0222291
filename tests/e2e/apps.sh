# clrscope apps gathers launchable .NET apps from the user's list, global
# tools, app_dir directories and desktop entries, each with its command.
source "$CLRSCOPE_TESTLIB"
spin_dir=$CLRSCOPE_APPS/Spin
cpu_dir=$CLRSCOPE_APPS/CpuRatio
[[ -x "$spin_dir/Spin" && -x "$cpu_dir/CpuRatio" ]] || { echo "missing test apps: run scripts/test.sh" >&2; exit 1; }

export HOME=$WORK/home XDG_CONFIG_HOME=$WORK/config XDG_DATA_DIRS=$WORK/data
unset XDG_DATA_HOME
mkdir -p "$HOME" "$XDG_CONFIG_HOME/clrscope" "$XDG_DATA_DIRS"

# nothing yet
expect_status 0 "apps with nothing configured" -- clrscope apps
expect_contains "$ERR" "no .NET apps found; list yours in $XDG_CONFIG_HOME/clrscope/apps" "says where to list apps"
expect_status 0 "apps --json with nothing" -- clrscope apps --json
[[ "$OUT" == "[]" ]] && pass "an empty JSON array" || fail "wanted [], got $OUT"

# (a) the list, with a malformed line
cat >"$XDG_CONFIG_HOME/clrscope/apps" <<LIST
# my apps
spin = dotnet $spin_dir/Spin.dll 5

  cpu ratio   =   dotnet $cpu_dir/CpuRatio.dll 1
this line has no equals sign
= no name
LIST
chmod 600 "$XDG_CONFIG_HOME/clrscope/apps" # (its lines are commands: it must stay private)
# (b) a global tool: an apphost in ~/.dotnet/tools
mkdir -p "$HOME/.dotnet/tools"
cp "$spin_dir/Spin" "$spin_dir/Spin.dll" "$spin_dir/Spin.runtimeconfig.json" "$HOME/.dotnet/tools/"
# (c) app_dir: an apphost one level down, a dll-only app three levels down,
# and one four levels down that is too deep
mkdir -p "$WORK/apps/a/b/SpinDll" "$WORK/apps/a/b/c/Deep"
cp -r "$cpu_dir" "$WORK/apps/CpuRatio"
cp "$spin_dir/Spin.dll" "$spin_dir/Spin.runtimeconfig.json" "$WORK/apps/a/b/SpinDll/"
cp "$spin_dir/Spin.dll" "$WORK/apps/a/b/c/Deep/Deep.dll"
cp "$spin_dir/Spin.runtimeconfig.json" "$WORK/apps/a/b/c/Deep/Deep.runtimeconfig.json"
cat >"$XDG_CONFIG_HOME/clrscope/config" <<CONFIG
# clrscope settings
theme = dark
app_dir = $WORK/apps
app_dir = $WORK/missing
CONFIG
# (d) desktop entries: dotnet with a quoted path holding a space, an
# apphost, and one that is not .NET
mkdir -p "$HOME/.local/share/applications" "$WORK/with space"
cat >"$HOME/.local/share/applications/spin.desktop" <<DESKTOP
[Desktop Entry]
Type=Application
Name=Spin Desktop
Exec=dotnet "$WORK/with space/Spin.dll" %U
DESKTOP
cat >"$HOME/.local/share/applications/cpu.desktop" <<DESKTOP
[Desktop Entry]
Type=Application
Name=CPU ratio
Exec=$WORK/apps/CpuRatio/CpuRatio 2 %f
DESKTOP
cat >"$HOME/.local/share/applications/other.desktop" <<DESKTOP
[Desktop Entry]
Type=Application
Name=Not dotnet
Exec=sleep 1
DESKTOP

expect_status 0 "apps (a malformed line does not fail it)" -- clrscope apps
list="$XDG_CONFIG_HOME/clrscope/apps"
expect_contains "$ERR" "$list:5: no '='" "the malformed line is reported with file:line"
expect_contains "$ERR" "$list:6: no name" "so is the line with no name"
expect_contains "$ERR" "$XDG_CONFIG_HOME/clrscope/config:4: app_dir $WORK/missing" "a missing app_dir is reported"
expect_contains "$(head -1 <<<"$OUT")" "NAME" "the table has a header"
row() { grep -E "^$1 +$2 " <<<"$OUT" || true; }
expect_contains "$(row spin list)" "dotnet $spin_dir/Spin.dll 5" "list: spin"
expect_contains "$(row 'cpu ratio' list)" "dotnet $cpu_dir/CpuRatio.dll 1" "list: a name with a space"
expect_contains "$(row Spin tool)" "$HOME/.dotnet/tools/Spin" "tool: the apphost in ~/.dotnet/tools"
expect_contains "$(row CpuRatio dir)" "$WORK/apps/CpuRatio/CpuRatio" "dir: the apphost"
expect_contains "$(row Spin dir)" "dotnet $WORK/apps/a/b/SpinDll/Spin.dll" "dir: dotnet NAME.dll three levels down"
[[ -z "$(row Deep dir)" ]] && pass "dir: not four levels down" || fail "found Deep: $OUT"
expect_contains "$(row 'Spin Desktop' desktop)" "dotnet '$WORK/with space/Spin.dll'" "desktop: dotnet, path quoted, %U gone"
expect_contains "$(row 'CPU ratio' desktop)" "$WORK/apps/CpuRatio/CpuRatio 2" "desktop: an apphost"
[[ "$OUT" != *"Not dotnet"* ]] && pass "desktop: not .NET is skipped" || fail "listed a non-.NET entry: $OUT"

clrscope apps --json >"$WORK/apps.json" 2>/dev/null
check "n == 7" "apps --json has all seven" n="$(json 'len(d)' "$WORK/apps.json")"
check "ok == 1" "json: the list entry, with its origin" \
	ok="$(json "int(any(a['name'] == 'spin' and a['source'] == 'list' and a['command'] == 'dotnet $spin_dir/Spin.dll 5' and a['origin'] == '$list:2' for a in d))" "$WORK/apps.json")"
check "ok == 1" "json: sources in order list, tool, dir, desktop" \
	ok="$(json "int([a['source'] for a in d] == sorted([a['source'] for a in d], key=['list', 'tool', 'dir', 'desktop'].index))" "$WORK/apps.json")"

expect_status 2 "apps with an argument" -- clrscope apps extra

# the list runs what it says: one that others may write (or a symbolic link
# to such a file) is ignored, with the reason, as the config file would be
chmod 620 "$list"
expect_status 1 "a list others may write fails apps" -- clrscope apps
expect_contains "$ERR" "$list is writable by other users; ignoring it" "and says why"
[[ -z "$(row spin list)" ]] && pass "none of its apps is listed" || fail "listed from a writable list: $OUT"
chmod 600 "$list"
cp "$list" "$WORK/shared-apps" && chmod 666 "$WORK/shared-apps"
mv "$list" "$WORK/own-apps" && ln -s "$WORK/shared-apps" "$list"
expect_status 1 "a list linked to a file others may write fails apps" -- clrscope apps
expect_contains "$ERR" "a symbolic link to a file writable by other users" "and says so"
rm "$list" && mv "$WORK/own-apps" "$list"
expect_status 0 "the private list is read again" -- clrscope apps
expect_contains "$(row spin list)" "dotnet $spin_dir/Spin.dll 5" "list: spin again"

# an unreadable list (root reads any file: it runs clrscope here without
# the capabilities that let it)
chmod 000 "$list"
as_user=()
[[ $(id -u) == 0 ]] && as_user=(setpriv --bounding-set=-dac_override,-dac_read_search)
if "${as_user[@]}" test -r "$list"; then
	skip_part "an unreadable list: this user reads it all the same"
else
	expect_status 1 "an unreadable list fails apps" -- "${as_user[@]}" "$CLRSCOPE_BIN" apps
	expect_contains "$ERR" "cannot read $list" "and says which file"
fi
chmod 600 "$list"
finish
