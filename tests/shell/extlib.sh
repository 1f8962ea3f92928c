#!/bin/sh
# extlib.sh — CHOLMOD, UMFPACK and ARPACK are loaded at their first use
# (runtime/extlib.c): dyn is not linked with them, a run that needs one
# loads it, and a library that does not load, or lacks a function, stops
# the run with the library's name and exit status 3.  The broken
# libraries are stand-ins under the same sonames, found first through
# LD_LIBRARY_PATH.  Skipped (exit 77) when configure linked the libraries
# (their sonames unknown: config.h) or no C compiler is found.
#
# Environment (tests/run-tests): DYN the binary, srcdir the source tree,
# OUT a writable folder for outputs; CC the C compiler [cc].
set -u
: "${DYN:?DYN is not set}" "${srcdir:?srcdir is not set}" "${OUT:?OUT is not set}"
unset DYN_PATH DYN_STDLIB
LC_ALL=C
export LC_ALL

. "$srcdir/tests/shell/common.inc"
test_folder extlib extlib fake bad
dyn=$(cd "$(dirname "$DYN")" && pwd)/$(basename "$DYN")
config=$(dirname "$dyn")/config.h
soname() {
	sed -n "s/^#define $1 \"\\(.*\\)\"\$/\\1/p" "$config" 2>/dev/null
}
cholmod=$(soname CHOLMOD_SONAME)
arpack=$(soname ARPACK_SONAME)
cc=${CC:-cc}
if [ -z "$cholmod" ] || [ -z "$arpack" ] || ! command -v "$cc" > /dev/null 2>&1; then
	echo "extlib: skipped: the libraries are linked, or no C compiler"
	exit 77
fi

# 1. dyn does not load them when it starts
if command -v ldd > /dev/null 2>&1 && ldd "$dyn" | grep -q -e "$cholmod" -e "$arpack"; then
	fail "dyn is linked with $cholmod or $arpack: $(ldd "$dyn" | grep -e cholmod -e arpack)"
fi

# 2. a run that needs CHOLMOD (an operator read from a Matrix Market
# file) loads it and runs
cat > "$dir/m.dyn" <<'DYN'
model m {
  dof x[3]
  mass eye(3)
  stiffness mtx("k.mtx")
}
let r = run m with newmark from 0 to 0.01 step 1e-3
print r.x[1](0.01)
DYN
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 4\n2 2 4\n3 3 4\n' > "$dir/k.mtx"
(cd "$dir" && "$dyn" m.dyn > m.out 2> m.err)
st=$?
[ "$st" = 0 ] || fail "an mtx operator: exit status $st: $(cat "$dir/m.err")"
[ "$(cat "$dir/m.out")" = 0 ] || fail "an mtx operator at rest printed '$(cat "$dir/m.out")', expected 0"

# 3. a library under CHOLMOD's soname without its functions
echo 'int dyn_stand_in;' > "$dir/fake.c"
if ! "$cc" -shared -fPIC -Wl,-soname,"$cholmod" -o "$dir/fake/$cholmod" "$dir/fake.c" 2> "$dir/cc.err"; then
	echo "extlib: skipped: $cc cannot build a shared library: $(cat "$dir/cc.err")"
	exit 77
fi
(cd "$dir" && LD_LIBRARY_PATH="$dir/fake" "$dyn" m.dyn > fake.out 2> fake.err)
st=$?
[ "$st" = 3 ] || fail "a CHOLMOD without functions: exit status $st, expected 3"
want="dyn: $cholmod has no function cholmod_start: it is not the library dyn was built with"
[ "$(cat "$dir/fake.err")" = "$want" ] || fail "a CHOLMOD without functions said '$(cat "$dir/fake.err")', expected '$want'"

# 4. a file under ARPACK's soname that is no library (the lowest modes of
# a 700-dof chain go through ARPACK)
printf 'not a library\n' > "$dir/bad/$arpack"
cat > "$dir/modes.dyn" <<'DYN'
param n = 700
model c {
  dof x[n]
  kinetic sum(i in 1..n) 0.5*x[i]'^2
  potential 0.5*x[1]^2 + sum(i in 2..n) 0.5*(x[i] - x[i-1])^2
}
let md = modes(c, 2)
print md.omega[1]
DYN
(cd "$dir" && LD_LIBRARY_PATH="$dir/bad" "$dyn" modes.dyn > bad.out 2> bad.err)
st=$?
[ "$st" = 3 ] || fail "an ARPACK that is no library: exit status $st, expected 3"
case $(cat "$dir/bad.err") in
"dyn: cannot load $arpack, which this run needs: $dir/bad/$arpack: "*) ;;
*) fail "an ARPACK that is no library said '$(cat "$dir/bad.err")'" ;;
esac
[ -s "$dir/bad.out" ] && fail "an ARPACK that is no library printed '$(cat "$dir/bad.out")'"
# and with the system's, the same script gives the chain's first
# frequency 2 sin(pi/(2(2n + 1))), to ARPACK's tolerance
(cd "$dir" && "$dyn" modes.dyn > good.out 2> good.err) || fail "modes with ARPACK: $(cat "$dir/good.err")"
awk 'BEGIN { w = 2 * sin(3.141592653589793 / 2802) }
     { e = $1 / w - 1; if (e < 0) e = -e; exit !(e < 1e-9) }' "$dir/good.out" ||
	fail "modes with ARPACK: omega 1 = '$(cat "$dir/good.out")', expected 2 sin(pi/2802)"
exit $status
