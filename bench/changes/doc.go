// Command changes measures how changes leave streamdb (issue 26), against
// bin/streamdb run as a process of its own and, for sinks, an in-process
// kfake broker, and writes bench/results/changes.json and changes.md:
//
//   - latency: a SUBSCRIBE client's wait for each of 10,000 one-row
//     INSERTs, each a transaction of its own sent after the previous one
//     was received. It is timed from sending the INSERT to the client
//     receiving its row (the commit's own durable write included), and
//     from the writer's commit acknowledgement to the row (negative when
//     the row arrives first: the subscriber is fed before the writer is
//     told). Target: p99 ≤ 20 ms on an idle machine.
//   - fan-out: the rate of write ticks that change a GROUP BY view (four
//     writers, one-row transactions) for a fixed time, with no subscriber
//     and then with 100 COPY (SUBSCRIBE) clients of the view reading every
//     change. Target: with 100 at least 0.5× the rate with none.
//   - sink: the records per second a CREATE SINK … ENVELOPE UPSERT writes
//     for a table's inserts (1,000-row INSERTs, the sink created before
//     them), timed from the first INSERT until a read_committed consumer
//     has every record, against a bare franz-go transactional producer
//     writing the same records (read back from the sink's topic) in
//     transactions of the same size to a topic of the same partitions.
//     Target: the sink at least 0.5× the bare producer.
//
// Run it from the repository root after make build with `go run
// ./bench/changes`. The machine's load average is reported beside the
// numbers: on a shared machine every number moves with it.
package main
