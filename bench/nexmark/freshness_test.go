package main

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		out := make([]time.Duration, len(ns))
		for i, n := range ns {
			out[i] = time.Duration(n) * time.Millisecond
		}
		return out
	}
	for _, tc := range []struct {
		in   []time.Duration
		q    float64
		want time.Duration
	}{
		{nil, 0.5, 0},
		{ms(7), 0.99, 7 * time.Millisecond},
		{ms(5, 1, 4, 2, 3), 0.5, 3 * time.Millisecond},
		{ms(1, 2, 3, 4), 0.5, 2 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 0.99, 10 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 0.9, 9 * time.Millisecond},
		{ms(3, 1, 2), 1, 3 * time.Millisecond},
	} {
		if got := percentile(tc.in, tc.q); got != tc.want {
			t.Errorf("percentile(%v, %v) = %v, want %v", tc.in, tc.q, got, tc.want)
		}
	}
}

// TestEventLags traces the freshness model at 10 events per second: event
// k is generated 100ms·k after start; an observation at offset n covers
// every event below n not covered before.
func TestEventLags(t *testing.T) {
	start := time.Unix(1000, 0)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	obs := []observation{
		{Offset: 3, At: at(250)}, // events 0,1,2 generated at 0,100,200
		{Offset: 4, At: at(330)}, // event 3 at 300
		{Offset: 6, At: at(600)}, // events 4,5 at 400,500
	}
	got := eventLags(obs, start, at(100), 10)
	want := []time.Duration{150, 50, 30, 200, 100} // event 0 is before notBefore
	if len(got) != len(want) {
		t.Fatalf("eventLags = %v, want %v ms", got, want)
	}
	for i := range want {
		if got[i] != want[i]*time.Millisecond {
			t.Fatalf("eventLags = %v, want %v ms", got, want)
		}
	}
}
