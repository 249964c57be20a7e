package server

import (
	"os"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want time.Duration
		err  bool
	}{
		{name: "plain", in: "4242 (streamdb) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 130 0 0 20 0 9 0",
			want: 3800 * time.Millisecond},
		{name: "spaces and parens in comm", in: "7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0",
			want: 30 * time.Millisecond},
		{name: "truncated", in: "7 (x) R 1 7", err: true},
		{name: "no comm", in: "7 x R", err: true},
		{name: "not a number", in: "7 (x) R 1 7 7 0 -1 0 0 0 0 0 u 2 0", err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseStat([]byte(tc.in))
			if tc.err {
				if err == nil {
					t.Fatalf("parseStat(%q) = %v, want an error", tc.in, got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("parseStat(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestParseStatus(t *testing.T) {
	in := "Name:\tstreamdb\nVmPeak:\t 2000 kB\nVmHWM:\t  185672 kB\nVmRSS:\t  100000 kB\nThreads:\t9\n"
	rss, peak, err := parseStatus([]byte(in))
	if err != nil || rss != 100000*1024 || peak != 185672*1024 {
		t.Fatalf("parseStatus = %d, %d, %v", rss, peak, err)
	}
	if _, _, err := parseStatus([]byte("Name:\tx\nVmRSS:\t1 kB\n")); err == nil {
		t.Fatal("parseStatus without VmHWM succeeded")
	}
	if _, _, err := parseStatus([]byte("VmRSS:\t1 MB\nVmHWM:\t1 kB\n")); err == nil {
		t.Fatal("parseStatus accepted a unit other than kB")
	}
}

// TestReadUsageSelf reads this test's own process, which has used some CPU
// and memory by now.
func TestReadUsageSelf(t *testing.T) {
	u, err := ReadUsage(os.Getpid())
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	if u.RSS <= 0 || u.PeakRSS < u.RSS || u.CPU < 0 {
		t.Fatalf("implausible usage %+v", u)
	}
}
