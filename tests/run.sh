#!/usr/bin/env bash
# Runs rswoole's PHP-level test suites (phpt via run-tests.php, then the python integration tests) and prints one summary line.
#
# Usage: tests/run.sh                 (uses $RSWOOLE_SO, default target/release/librswoole.so)
#        RSW_SLOW=1 tests/run.sh      (also runs tests marked slow, e.g. the 70 s header timeout)
#        tests/run.sh php-tests/swoole_module   (phpt subset; the python suite still runs)
# Exit status is non-zero when any test fails or borks, or when a suite ran no test.
# `cargo test` is not run here.

set -u
cd "$(dirname "$0")/.." || exit 2
ROOT=$(pwd)

SO=${RSWOOLE_SO:-target/release/librswoole.so}
case "$SO" in /*) ;; *) SO="$ROOT/$SO" ;; esac
export RSWOOLE_SO="$SO"
PHP=${PHP:-$(command -v php)}
export PHP_BINARY="$PHP"
RUN_TESTS=${RUN_TESTS:-/usr/lib/php/20220829/build/run-tests.php}
PHPT_DIRS=("$@")
[ ${#PHPT_DIRS[@]} -eq 0 ] && PHPT_DIRS=(php-tests/)

WORK=$(mktemp -d /tmp/rsw_run.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

summary() { # passed failed skipped
    echo
    echo "$1 passed, $2 failed, $3 skipped"
}

if [ ! -f "$SO" ]; then
    echo "run.sh: extension not found: $SO (build it, or set RSWOOLE_SO)" >&2
    summary 0 1 0
    exit 1
fi
if ! "$PHP" -n -d "extension=$SO" -r 'exit(extension_loaded("swoole") ? 0 : 1);' >"$WORK/load.txt" 2>&1; then
    echo "run.sh: $SO does not load as the 'swoole' module:" >&2
    cat "$WORK/load.txt" >&2
    summary 0 1 0
    exit 1
fi

# Extensions the tests need that `php -n` does not load by itself.
EXT_ARGS=()
for ext in posix sockets sysvmsg; do
    if ! "$PHP" -n -m 2>/dev/null | grep -qx "$ext"; then
        EXT_ARGS+=(-d "extension=$ext")
    fi
done

SLOW_ARGS=(-x)   # run-tests.php -x sets SKIP_SLOW_TESTS
[ "${RSW_SLOW:-0}" = "1" ] && SLOW_ARGS=()

# ---- (a) phpt suite --------------------------------------------------------------------------
echo "== phpt suite (${PHPT_DIRS[*]}) with $SO"
TEST_PHP_EXECUTABLE="$PHP" NO_INTERACTION=1 "$PHP" "$RUN_TESTS" -q -n \
    -d "extension=$SO" "${EXT_ARGS[@]}" \
    --show-diff --no-color --no-progress --set-timeout 60 -j2 "${SLOW_ARGS[@]}" \
    -W "$WORK/phpt_results.txt" "${PHPT_DIRS[@]}" 2>&1 | tee "$WORK/phpt_out.txt"
PHPT_RC=${PIPESTATUS[0]}

P_PASS=0 P_FAIL=0 P_SKIP=0
if [ -f "$WORK/phpt_results.txt" ]; then
    P_PASS=$(grep -c '^PASSED' "$WORK/phpt_results.txt")
    P_FAIL=$(grep -cE '^(FAILED|BORKED|LEAKED|WARNED|XLEAKED|LEAKED&FAILED)' "$WORK/phpt_results.txt")
    P_SKIP=$(grep -c '^SKIPPED' "$WORK/phpt_results.txt")
fi
if [ "$PHPT_RC" -ne 0 ] && [ "$P_FAIL" -eq 0 ]; then
    echo "run.sh: run-tests.php exited $PHPT_RC without a recorded failure; counting it as one" >&2
    P_FAIL=1
fi
if [ $((P_PASS + P_FAIL)) -eq 0 ]; then
    echo "run.sh: the phpt suite ran no test" >&2
    P_FAIL=$((P_FAIL + 1))
fi
echo "phpt: $P_PASS passed, $P_FAIL failed, $P_SKIP skipped"

# ---- (b) python integration suite ------------------------------------------------------------
echo
echo "== python integration suite (tests/integration)"
timeout -k 10 300 python3 -m unittest discover -s tests/integration -t tests/integration -v 2>&1 | tee "$WORK/py_out.txt"
PY_RC=${PIPESTATUS[0]}

ran=$(sed -n 's/^Ran \([0-9][0-9]*\) tests\{0,1\} in .*/\1/p' "$WORK/py_out.txt" | tail -1)
ran=${ran:-0}
last=$(grep -E '^(OK|FAILED)( \(.*\))?$' "$WORK/py_out.txt" | tail -1)
field() { echo "$last" | sed -n "s/.*[(, ]$1=\([0-9][0-9]*\).*/\1/p"; }
failures=$(field failures); errors=$(field errors); skipped=$(field skipped)
xfail=$(field 'expected failures'); xpass=$(field 'unexpected successes')
failures=${failures:-0} errors=${errors:-0} skipped=${skipped:-0} xfail=${xfail:-0} xpass=${xpass:-0}
Y_FAIL=$((failures + errors + xpass))
Y_SKIP=$skipped
Y_PASS=$((ran - Y_FAIL - Y_SKIP - xfail))
[ "$Y_PASS" -lt 0 ] && Y_PASS=0
if [ "$PY_RC" -ne 0 ] && [ "$Y_FAIL" -eq 0 ]; then
    echo "run.sh: python unittest exited $PY_RC without a recorded failure; counting it as one" >&2
    Y_FAIL=1
fi
if [ "$ran" -eq 0 ]; then
    echo "run.sh: the python suite ran no test" >&2
    Y_FAIL=$((Y_FAIL + 1))
fi
echo "python: $Y_PASS passed, $Y_FAIL failed, $Y_SKIP skipped"

# ---- summary ---------------------------------------------------------------------------------
PASS=$((P_PASS + Y_PASS))
FAIL=$((P_FAIL + Y_FAIL))
SKIP=$((P_SKIP + Y_SKIP))
summary "$PASS" "$FAIL" "$SKIP"
[ "$FAIL" -eq 0 ]
