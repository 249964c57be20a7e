package server

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of the times in /proc/<pid>/stat. The
// kernel fixes it at 100 on every architecture Go supports on Linux, and
// reading sysconf(_SC_CLK_TCK) would need cgo.
const clockTicks = 100

// Usage is what a process has consumed so far.
type Usage struct {
	// CPU is user plus system time over all of the process's threads.
	CPU time.Duration
	// RSS and PeakRSS are the current and highest resident set sizes in
	// bytes (VmRSS and VmHWM).
	RSS, PeakRSS int64
}

// ReadUsage reads the usage of process pid from /proc.
func ReadUsage(pid int) (Usage, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Usage{}, err
	}
	cpu, err := parseStat(stat)
	if err != nil {
		return Usage{}, err
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Usage{}, err
	}
	rss, peak, err := parseStatus(status)
	if err != nil {
		return Usage{}, err
	}
	return Usage{CPU: cpu, RSS: rss, PeakRSS: peak}, nil
}

// parseStat returns utime+stime from the contents of /proc/<pid>/stat.
// The command name (field 2) is parenthesised and may itself contain
// spaces and parentheses, so fields are counted from the last ')'.
func parseStat(b []byte) (time.Duration, error) {
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return 0, fmt.Errorf("/proc stat: no command name in %q", b)
	}
	// After ") " come fields 3 (state) onwards; utime and stime are 14
	// and 15, so the 12th and 13th of these.
	fields := bytes.Fields(b[end+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc stat: %d fields after the command name, want at least 13", len(fields))
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(string(f), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc stat: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// parseStatus returns VmRSS and VmHWM in bytes from the contents of
// /proc/<pid>/status.
func parseStatus(b []byte) (rss, peak int64, err error) {
	found := 0
	for line := range bytes.Lines(b) {
		name, rest, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		var dst *int64
		switch string(name) {
		case "VmRSS":
			dst = &rss
		case "VmHWM":
			dst = &peak
		default:
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0, 0, fmt.Errorf("/proc status: unexpected %s line %q", name, line)
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc status: %w", err)
		}
		*dst = kb * 1024
		found++
	}
	if found != 2 {
		return 0, 0, fmt.Errorf("/proc status: VmRSS or VmHWM missing")
	}
	return rss, peak, nil
}

// LoadAverage is the machine's 1, 5 and 15 minute load averages from
// /proc/loadavg, which results report beside their rates: on a shared
// machine they say how far to trust them.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
