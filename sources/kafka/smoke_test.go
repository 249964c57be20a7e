package kafka

import "testing"

func TestSmoke(t *testing.T) {
	c := newCluster(t, 2, "t")
	p := newProducer(t, c.ListenAddrs())
	produce(t, p, "t", rec(0, nil, b(`{"a": 1, "b": [1,2]}`)), rec(1, b("k"), b(`{"z":1,"a":"x"}`)), rec(0, nil, b(`not json`)))
	src := mustNew(t, Config{Brokers: c.ListenAddrs(), Topic: "t", ValueFormat: Format{Kind: FormatJSON}, Include: []IncludeOpt{{Kind: IncludePartition}, {Kind: IncludeOffset}}})
	sink, _ := start(t, src, nil)
	got := sink.waitChanges(t, 2)
	t.Log(got, sink.dead, sink.states)
}
