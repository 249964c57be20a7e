"""Shared by the Python client checks: one line per check, "ok NAME" or
"FAIL NAME: REASON", which compat's Go tests turn into test results."""
import sys
import traceback

failures = 0


def check(name, ok, detail=""):
    global failures
    if ok:
        print("ok", name, flush=True)
    else:
        failures += 1
        print("FAIL %s: %s" % (name, detail), flush=True)


def run(name, fn, *args):
    """Runs one group of checks; an exception fails it with its message."""
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 - every failure is reported
        check(name, False, "%s: %s" % (type(e).__name__, e))
        traceback.print_exc(file=sys.stdout)


def finish():
    sys.exit(1 if failures else 0)
