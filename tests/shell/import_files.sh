#!/bin/sh
# import_files.sh — a module must be a regular file.  `import m` finding
# m.dyn as a folder, a FIFO or a link to /dev/zero is an error at the
# import's name, exit 3, within seconds: the folder read as an empty
# module (exit 0, silently), the FIFO's open blocked for ever, /dev/zero
# was read until memory ran out ("out of memory while checking", with no
# location).  The same for the REPL's :load of a FIFO (its open blocked).
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder import_files import_files

mkdir -p "$dir/folder.dyn"
rm -f "$dir/fifo.dyn" "$dir/zero.dyn"
mkfifo "$dir/fifo.dyn" 2> /dev/null || echo "import_files: NOTE: mkfifo failed: the FIFO case is skipped"
ln -s /dev/zero "$dir/zero.dyn"

expect() {  # MODULE EXPECTED-STDERR-FIRST-LINE
	printf 'import %s\nprint "after"\n' "$1" > "$dir/use_$1.dyn"
	(cd "$dir" && timeout 20 "$DYN" "use_$1.dyn" > "use_$1.out" 2> "use_$1.err" < /dev/null)
	st=$?
	[ "$st" -eq 3 ] || fail "import $1: exit status $st, expected 3 ($(head -c 200 "$dir/use_$1.err"))"
	[ -s "$dir/use_$1.out" ] && fail "import $1: the script ran: $(head -c 200 "$dir/use_$1.out")"
	[ "$(head -n 1 "$dir/use_$1.err")" = "$2" ] ||
		fail "import $1: first line '$(head -n 1 "$dir/use_$1.err")', expected '$2'"
}

expect folder "use_folder.dyn:1:8: error: module 'folder': ./folder.dyn is a folder"
[ -p "$dir/fifo.dyn" ] && expect fifo "use_fifo.dyn:1:8: error: module 'fifo': ./fifo.dyn is not a regular file"
expect zero "use_zero.dyn:1:8: error: module 'zero': ./zero.dyn is not a regular file"

if [ -p "$dir/fifo.dyn" ]; then
	: > "$dir/empty.dyn"
	(cd "$dir" && printf ':load fifo.dyn\nprint "next"\n' | timeout 20 "$DYN" -i empty.dyn > load.out 2> load.err)
	st=$?
	[ "$st" -eq 124 ] && fail ":load of a FIFO blocked"
	grep -q "cannot read 'fifo.dyn': not a regular file" "$dir/load.out" "$dir/load.err" ||
		fail ":load fifo.dyn: no refusal: $(cat "$dir/load.out" "$dir/load.err" | head -c 300)"
fi
[ "$status" -eq 0 ] && echo "import_files: ok"
exit "$status"
