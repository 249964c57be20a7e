package sql

import (
	"strconv"
	"strings"
	"time"

	"github.com/streamdb/streamdb/pgerr"
)

// parseTimeout reads a duration setting as PostgreSQL does: a number of
// milliseconds, or a number with a unit (us, ms, s, min, h, d).
func parseTimeout(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	i := 0
	for i < len(v) && (v[i] >= '0' && v[i] <= '9' || v[i] == '.') {
		i++
	}
	n, err := strconv.ParseFloat(v[:i], 64)
	if err != nil {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"statement_timeout\": %q", v)
	}
	unit := map[string]time.Duration{"": time.Millisecond, "us": time.Microsecond, "ms": time.Millisecond, "s": time.Second, "min": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
	u, ok := unit[strings.TrimSpace(v[i:])]
	if !ok {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"statement_timeout\": %q", v).
			WithHint("Valid units for this parameter are \"us\", \"ms\", \"s\", \"min\", \"h\", and \"d\".")
	}
	return time.Duration(n * float64(u)), nil
}

// checkTimeout validates a statement_timeout and writes it as SHOW
// prints it: in the largest unit that divides it.
func checkTimeout(v string) (string, error) {
	d, err := parseTimeout(v)
	if err != nil {
		return "", err
	}
	ms := d.Milliseconds()
	if ms < 0 || ms > 1<<31-1 {
		return "", pgerr.New(pgerr.InvalidParameterValue, "%d ms is outside the valid range for parameter \"statement_timeout\" (0 .. 2147483647)", ms)
	}
	if ms == 0 {
		return "0", nil
	}
	for _, u := range []struct {
		name string
		ms   int64
	}{{"d", 86400000}, {"h", 3600000}, {"min", 60000}, {"s", 1000}} {
		if ms%u.ms == 0 {
			return strconv.FormatInt(ms/u.ms, 10) + u.name, nil
		}
	}
	return strconv.FormatInt(ms, 10) + "ms", nil
}
