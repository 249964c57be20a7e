package sql

import "testing"

func TestCheckTimeout(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0", "0"}, {"200", "200ms"}, {"1500", "1500ms"}, {"5000", "5s"}, {"2min", "2min"},
		{"120s", "2min"}, {"1 h", "1h"}, {"1.5s", "1500ms"}, {"86400000", "1d"}, {"0.5 ms", "0"},
	}
	for _, tt := range tests {
		got, err := checkTimeout(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("checkTimeout(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "abc", "5 parsecs", "-1", "3000000000"} {
		if _, err := checkTimeout(bad); err == nil {
			t.Errorf("checkTimeout(%q) accepted", bad)
		}
	}
}
