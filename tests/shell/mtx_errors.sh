#!/bin/sh
# mtx_errors.sh — every refusal of an operator read from a Matrix Market
# file (dyn(5), "Operators from files"): the first line of the message,
# which gives the script's file:line:col of the mtx(...) call, the file
# and, for a problem inside it, its line; exit status 3, before stepping.
# The bad files are written here into $OUT (golden cases cannot carry data
# files).
#
# Environment (tests/run-tests): DYN the binary, srcdir the source tree,
# OUT a writable folder for outputs.
set -u
: "${DYN:?DYN is not set}" "${srcdir:?srcdir is not set}" "${OUT:?OUT is not set}"
unset DYN_PATH DYN_STDLIB
LC_ALL=C
export LC_ALL

. "$srcdir/tests/shell/common.inc"
test_folder mtx_errors mtx_errors
dyn=$(cd "$(dirname "$DYN")" && pwd)/$(basename "$DYN")

# expect NAME OPERATOR MESSAGE: a 3-dof model whose OPERATOR is
# mtx("NAME.mtx") is refused with exit 3 and "NAME.dyn:4:COL: error:
# MESSAGE" as the first line, COL that of the call.
expect() {
	other="mass eye(3)"
	[ "$2" = mass ] && other="stiffness eye(3)"
	cat > "$dir/$1.dyn" <<EOF
model m {
  dof x[3]
  $other
  $2 mtx("$1.mtx")
}
let r = run m with newmark(beta = 1/4, gamma = 1/2) from 0 to 0.01 step 1e-3
EOF
	col=$(( ${#2} + 4 ))
	(cd "$dir" && "$dyn" "$1.dyn" > "$1.out" 2> "$1.err")
	st=$?
	[ "$st" = 3 ] || fail "$1: exit status $st, expected 3"
	got=$(head -n 1 "$dir/$1.err")
	want="$1.dyn:4:$col: error: $3"
	[ "$got" = "$want" ] || fail "$1: got
  $got
expected
  $want"
}

# mk NAME: the file NAME.mtx from standard input.
mk() {
	cat > "$dir/$1.mtx"
}

H='%%MatrixMarket matrix coordinate real symmetric'

expect missing stiffness "stiffness: cannot open 'missing.mtx': No such file or directory"
mkdir "$dir/folder.mtx"
expect folder stiffness "stiffness: 'folder.mtx' is not a regular file"
mkfifo "$dir/fifo.mtx" 2>/dev/null && expect fifo stiffness "stiffness: 'fifo.mtx' is not a regular file"
: > "$dir/empty.mtx"
expect empty stiffness "stiffness: 'empty.mtx' is empty: a Matrix Market file starts with '%%MatrixMarket matrix ...'"

printf 'row,col,value\n1,1,2\n' | mk csv
expect csv stiffness "stiffness: 'csv.mtx' line 1: not a Matrix Market file (the first line must start with '%%MatrixMarket')"
printf '%%%%MatrixMarket matrix coordinate real\n3 3 0\n' | mk short
expect short stiffness "stiffness: 'short.mtx' line 1: the banner must read '%%MatrixMarket matrix FORMAT FIELD SYMMETRY'"
printf '%%%%MatrixMarket vector coordinate real general\n3 0\n' | mk vector
expect vector stiffness "stiffness: 'vector.mtx' line 1: the object must be 'matrix'"
printf '%%%%MatrixMarket matrix triplet real general\n3 3 0\n' | mk format
expect format stiffness "stiffness: 'format.mtx' line 1: the format must be 'coordinate' or 'array'"
printf '%%%%MatrixMarket matrix coordinate complex general\n3 3 1\n1 1 1 0\n' | mk complex
expect complex damping "damping: 'complex.mtx' line 1: field 'complex' is not supported: an operator's entries are real ('real' or 'integer')"
printf '%%%%MatrixMarket matrix coordinate double general\n3 3 0\n' | mk field
expect field stiffness "stiffness: 'field.mtx' line 1: the field must be 'real', 'integer' or 'pattern'"
printf '%%%%MatrixMarket matrix array pattern general\n3 3\n' | mk arraypattern
expect arraypattern stiffness "stiffness: 'arraypattern.mtx' line 1: an 'array' file cannot be 'pattern'"
printf '%%%%MatrixMarket matrix coordinate real hermitian\n3 3 0\n' | mk hermitian
expect hermitian stiffness "stiffness: 'hermitian.mtx' line 1: symmetry 'hermitian' is not supported ('general' or 'symmetric')"
printf '%%%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 0\n' | mk skew
expect skew damping "damping: 'skew.mtx' line 1: symmetry 'skew-symmetric' is not supported ('general' or 'symmetric')"
printf '%%%%MatrixMarket matrix coordinate real upper\n3 3 0\n' | mk symmetry
expect symmetry stiffness "stiffness: 'symmetry.mtx' line 1: the symmetry must be 'general' or 'symmetric'"

printf '%s\n%% only comments\n\n' "$H" | mk nosize
expect nosize stiffness "stiffness: 'nosize.mtx' ends before its size line"
printf '%s\n3 3\n' "$H" | mk sizefields
expect sizefields stiffness "stiffness: 'sizefields.mtx' line 2: the size line must give rows, columns and entries"
printf '%%%%MatrixMarket matrix array real general\n3 3 9\n' | mk arraysize
expect arraysize stiffness "stiffness: 'arraysize.mtx' line 2: the size line must give rows and columns"
printf '%s\n0 3 0\n' "$H" | mk zero
expect zero stiffness "stiffness: 'zero.mtx' line 2: rows and columns must be whole numbers from 1 to 10000000"
printf '%s\n3 3.5 0\n' "$H" | mk fraction
expect fraction stiffness "stiffness: 'fraction.mtx' line 2: rows and columns must be whole numbers from 1 to 10000000"
printf '%s\n3 2 0\n' "$H" | mk notsquare
expect notsquare stiffness "stiffness: 'notsquare.mtx' line 2: a symmetric matrix must be square, not 3 x 2"
printf '%s\n3 3 -1\n' "$H" | mk negative
expect negative stiffness "stiffness: 'negative.mtx' line 2: the number of entries must be a whole number from 0 to 100000000"
printf '%s\n3 3 100000001\n' "$H" | mk toomany
expect toomany stiffness "stiffness: 'toomany.mtx' line 2: the number of entries must be a whole number from 0 to 100000000"
printf '%%%%MatrixMarket matrix array real general\n100000 100000\n' | mk bigarray
expect bigarray stiffness "stiffness: 'bigarray.mtx' line 2: an array of more than 100000000 entries is too large"

printf '%s\n3 3 2\n1 1 2\n2 2\n' "$H" | mk entryfields
expect entryfields stiffness "stiffness: 'entryfields.mtx' line 4: an entry must be 'row column value'"
printf '%%%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n' | mk patternfields
expect patternfields stiffness "stiffness: 'patternfields.mtx' line 3: an entry must be 'row column'"
printf '%%%%MatrixMarket matrix array real general\n3 3\n1 2\n' | mk arrayfields
expect arrayfields stiffness "stiffness: 'arrayfields.mtx' line 3: an entry must be one value"
printf '%s\n3 3 1\n1.0 1 2\n' "$H" | mk index
expect index stiffness "stiffness: 'index.mtx' line 3: the row and column must be whole numbers"
printf '%s\n3 3 2\n1 1 2\n%% comment\n4 1 1\n' "$H" | mk range
expect range stiffness "stiffness: 'range.mtx' line 5: entry (4, 1) is out of range: the matrix is 3 x 3"
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 1\n0 1 1\n' | mk rangezero
expect rangezero stiffness "stiffness: 'rangezero.mtx' line 3: entry (0, 1) is out of range: the matrix is 3 x 3"
printf '%s\n3 3 2\n1 1 2\n1 2 -1\n' "$H" | mk upper
expect upper stiffness "stiffness: 'upper.mtx' line 4: entry (1, 2) is above the diagonal: a symmetric file stores the lower triangle"
printf '%s\n3 3 1\n2 1 0x1q\n' "$H" | mk number
expect number stiffness "stiffness: 'number.mtx' line 3: entry (2, 1): the value is not a number"
printf '%s\n3 3 1\n2 1 0x10\n' "$H" | mk hex
expect hex stiffness "stiffness: 'hex.mtx' line 3: entry (2, 1): the value is not a number"
printf '%s\n3 3 1\n2 2 inf\n' "$H" | mk infinite
expect infinite stiffness "stiffness: 'infinite.mtx' line 3: entry (2, 2): the value is not finite"
printf '%s\n3 3 1\n2 2 1e400\n' "$H" | mk overflow
expect overflow stiffness "stiffness: 'overflow.mtx' line 3: entry (2, 2): the value is not finite"
printf '%%%%MatrixMarket matrix array real general\n3 3\n1\nnan\n' | mk arraynan
expect arraynan stiffness "stiffness: 'arraynan.mtx' line 4: entry 2: the value is not finite"
printf '%%%%MatrixMarket matrix coordinate integer symmetric\n3 3 1\n1 1 2.5\n' | mk integer
expect integer stiffness "stiffness: 'integer.mtx' line 3: entry (1, 1): the value is not an integer (the file's field is 'integer')"
printf '%s\n3 3 1\n1 1 9e307\n1 1 9e307\n' "$H" | sed 's/^3 3 1$/3 3 2/' | mk summed
expect summed stiffness "stiffness: 'summed.mtx': entry (1, 1), summed over its duplicates, is not finite"
# CHOLMOD's reader takes 1e308 for infinity: duplicates 1e308 and -1e308,
# whose sum is 0, were said to sum to something not finite
printf '%s\n3 3 1\n1 1 1e308\n1 1 -1e308\n' "$H" | sed 's/^3 3 1$/3 3 2/' | mk cholmodinf
expect cholmodinf stiffness "stiffness: 'cholmodinf.mtx' line 3: entry (1, 1): 1e308 is too large: the reader (CHOLMOD's) takes a magnitude of 1e308 or more for infinity"
printf '%s\n3 3 3\n1 1 2\n2 2 2\n' "$H" | mk truncated
expect truncated stiffness "stiffness: 'truncated.mtx' is truncated: it ends after 2 of the 3 entries declared on line 2"
printf '%%%%MatrixMarket matrix array real symmetric\n%% lower triangle: 6 values\n3 3\n1\n0\n0\n1\n0\n' | mk arraytruncated
expect arraytruncated stiffness "stiffness: 'arraytruncated.mtx' is truncated: it ends after 5 of the 6 entries declared on line 3"
# A sparse file of 5 GiB: refused by its size, before any of it is read.
if truncate -s 5G "$dir/huge.mtx" 2>/dev/null; then
	expect huge stiffness "stiffness: 'huge.mtx' is larger than 4 GiB"
	rm -f "$dir/huge.mtx"
fi
printf '%s\n3 3 1\n1 1 2\n\n2 2 2\n' "$H" | mk extra
expect extra stiffness "stiffness: 'extra.mtx' line 5: more entries than the 1 declared on line 2"
{ printf '%s\n%% ' "$H"; head -c 1100 /dev/zero | tr '\0' x; printf '\n3 3 0\n'; } | mk longline
expect longline stiffness "stiffness: 'longline.mtx' line 2: longer than 1024 characters"
{ printf '%s\n3 3 1\n1 1 ' "$H"; printf '\000\001\002\n'; } | mk binary
expect binary stiffness "stiffness: 'binary.mtx' line 3: a NUL byte (is it a binary file?)"

# Sound files that do not fit the model or the operator.
printf '%%%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n2 2\n3 3\n' | mk pattern
expect pattern mass "mass: 'pattern.mtx' is a pattern file: it says where the entries are, not their values"
printf '%%%%MatrixMarket matrix coordinate real general\n4 4 1\n1 1 1\n' | mk dofs
expect dofs stiffness "stiffness: 'dofs.mtx' is a 4 x 4 matrix, the model has 3 dofs"
printf '%%%%MatrixMarket matrix coordinate real general\n3 2 1\n1 1 1\n' | mk rect
expect rect damping "damping: 'rect.mtx' is a 3 x 2 matrix, the model has 3 dofs"

# Above the dense limit the file's entries are kept as entries (the
# matrix layer stores them banded or sparse); an empty mass is then
# refused as any zero mass.
printf '%%%%MatrixMarket matrix coordinate real general\n4001 4001 0\n' | mk big
printf 'model m {\n  dof x[4001]\n  mass mtx("big.mtx")\n}\nlet r = run m with newmark(beta = 1/4, gamma = 1/2) from 0 to 0.01 step 1e-3\n' > "$dir/big.dyn"
(cd "$dir" && "$dyn" big.dyn > big.out 2> big.err)
st=$?
got=$(head -n 1 "$dir/big.err")
want="big.dyn:3:3: error: the mass matrix is not positive definite: pivot 1 (dof x[1])"
[ "$st" = 3 ] && [ "$got" = "$want" ] || fail "big: exit $st, got
  $got
expected
  $want"

# ... and checked symmetric there too: an entry above the diagonal whose
# mirror is absent (the check looked from the stored lower entries only,
# and this stiffness ran as if symmetric)
{ printf '%%%%MatrixMarket matrix coordinate real general\n4001 4001 4002\n'
  i=1; while [ $i -le 4001 ]; do echo "$i $i 2"; i=$((i + 1)); done; echo "1 2 0.5"; } > "$dir/upper.mtx"
printf 'model m {\n  dof x[4001]\n  mass eye(4001)\n  stiffness mtx("upper.mtx")\n  init x[1] = 1\n}\nlet r = run m with newmark from 0 to 0.1 step 0.01\n' > "$dir/upper.dyn"
(cd "$dir" && "$dyn" upper.dyn > upper.out 2> upper.err)
st=$?
got=$(head -n 1 "$dir/upper.err")
want="upper.dyn:4:3: error: the stiffness matrix is not symmetric: entry (1, 2) is 0.5 but (2, 1) is 0"
[ "$st" = 3 ] && [ "$got" = "$want" ] || fail "upper: exit $st, got
  $got
expected
  $want"

# mtx(...) elsewhere than as an operator, and its argument.
printf '%s\n3 3 0\n' "$H" | mk ok
cat > "$dir/elsewhere.dyn" <<'EOF'
print mtx("ok.mtx")
EOF
(cd "$dir" && "$dyn" elsewhere.dyn > elsewhere.out 2> elsewhere.err)
st=$?
got=$(head -n 1 "$dir/elsewhere.err")
want="elsewhere.dyn:1:7: error: mtx(...) reads an operator from a file: use it as 'mass mtx(\"M.mtx\")', 'damping mtx(...)' or 'stiffness mtx(...)'"
[ "$st" = 3 ] && [ "$got" = "$want" ] || fail "elsewhere: exit $st, got
  $got
expected
  $want"
cat > "$dir/arity.dyn" <<'EOF'
model m {
  dof x[3]
  mass mtx("ok.mtx", 2)
}
let r = run m with newmark(beta = 1/4, gamma = 1/2) from 0 to 0.01 step 1e-3
EOF
(cd "$dir" && "$dyn" arity.dyn > arity.out 2> arity.err)
st=$?
got=$(head -n 1 "$dir/arity.err")
want="arity.dyn:3:8: error: mtx takes 1 argument (\"file.mtx\"), 2 given"
[ "$st" = 3 ] && [ "$got" = "$want" ] || fail "arity: exit $st, got
  $got
expected
  $want"

exit $status
