package types

import (
	"math"
	"strconv"
	"strings"
)

// parseFractionalSecond reads ".ddd" as microseconds, rounding half to
// even as rint does.
func parseFractionalSecond(s string) (int64, bool) {
	if len(s) < 1 || s[0] != '.' {
		return 0, false
	}
	for i := 1; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
	}
	if len(s) == 1 {
		return 0, true
	}
	f, err := strconv.ParseFloat("0"+s, 64)
	if err != nil {
		return 0, false
	}
	return int64(math.RoundToEven(f * 1e6)), true
}

// decodeClock reads h:m, h:m:s or h:m:s.f (and m:s.f), as
// DecodeTimeCommon does.
func decodeClock(s string) (h, m, sec, usec int64, err dtErr) {
	var partBuf [3]string
	parts := partBuf[:0]
	for rest := s; ; {
		i := strings.IndexByte(rest, ':')
		if i < 0 || len(parts) == 2 {
			parts = append(parts, rest)
			break
		}
		parts = append(parts, rest[:i])
		rest = rest[i+1:]
	}
	if len(parts) < 2 || parts[0] == "" {
		return 0, 0, 0, 0, dtBadFormat
	}
	num := func(p string) (int64, bool) {
		if p == "" {
			return 0, true
		}
		for i := 0; i < len(p); i++ {
			if !isDigit(p[i]) {
				return 0, false
			}
		}
		v, e := strconv.ParseInt(p, 10, 64)
		return v, e == nil
	}
	var ok bool
	if h, ok = num(parts[0]); !ok {
		return 0, 0, 0, 0, dtFieldOverflow
	}
	mins := parts[1]
	if dot := strings.IndexByte(mins, '.'); dot >= 0 && len(parts) == 2 {
		// mm:ss.fff
		if usec, ok = parseFractionalSecond(mins[dot:]); !ok {
			return 0, 0, 0, 0, dtBadFormat
		}
		if sec, ok = num(mins[:dot]); !ok {
			return 0, 0, 0, 0, dtBadFormat
		}
		m, h = h, 0
	} else {
		if m, ok = num(mins); !ok {
			return 0, 0, 0, 0, dtBadFormat
		}
		if len(parts) == 3 {
			secs := parts[2]
			if dot := strings.IndexByte(secs, '.'); dot >= 0 {
				if usec, ok = parseFractionalSecond(secs[dot:]); !ok {
					return 0, 0, 0, 0, dtBadFormat
				}
				secs = secs[:dot]
			}
			if sec, ok = num(secs); !ok {
				return 0, 0, 0, 0, dtBadFormat
			}
		}
	}
	if m > 59 || sec > 60 || usec > usecsPerSec {
		return 0, 0, 0, 0, dtFieldOverflow
	}
	return h, m, sec, usec, dtOK
}

// timeOverflows rejects times past 24:00:00.
func timeOverflows(h, m, s, us int64) bool {
	if h < 0 || m < 0 || m > 59 || s < 0 || s > 60 || us < 0 || us > usecsPerSec || h > 24 {
		return true
	}
	return h*3600*usecsPerSec+m*60*usecsPerSec+s*usecsPerSec+us > usecsPerDay
}

// decodeTZOffset reads +hh, +hhmm, +hh:mm or +hh:mm:ss as seconds east
// of UTC. As in DecodeTimezone, the range check (at most 15 hours) comes
// before the check for trailing characters.
func decodeTZOffset(s string) (int64, dtErr) {
	num := func(p string) (int64, string) {
		i := 0
		for i < len(p) && i < 10 && isDigit(p[i]) {
			i++
		}
		v, _ := strconv.ParseInt(p[:i], 10, 64)
		return v, p[i:]
	}
	h, rest := num(s[1:])
	var m, sec int64
	switch {
	case strings.HasPrefix(rest, ":"):
		m, rest = num(rest[1:])
		if strings.HasPrefix(rest, ":") {
			sec, rest = num(rest[1:])
		}
	case rest == "" && len(s) > 3:
		h, m = h/100, h%100
	}
	if h > 15 || m >= 60 || sec >= 60 {
		return 0, dtTZOverflow
	}
	if rest != "" {
		return 0, dtBadFormat
	}
	off := h*3600 + m*60 + sec
	if s[0] == '-' {
		off = -off
	}
	return off, dtOK
}
