package parser

import "testing"

const benchSource = `CREATE SOURCE IF NOT EXISTS orders (
    id bigint NOT NULL,
    customer text,
    amount numeric(10,2),
    placed_at timestamp with time zone
)
FROM KAFKA CONNECTION kafka_conn (TOPIC 'orders', GROUP ID PREFIX 'streamdb-')
KEY FORMAT TEXT VALUE FORMAT JSON
INCLUDE PARTITION, OFFSET AS kafka_offset, TIMESTAMP AS ts
ENVELOPE UPSERT
WITH (DEAD LETTER TOPIC = 'orders-dlq')`

func BenchmarkParse(b *testing.B) {
	for _, bc := range []struct{ name, sql string }{
		{"create_source", benchSource},
		{"subscribe", "SUBSCRIBE (SELECT customer, sum(amount) FROM orders GROUP BY customer) WITH (SNAPSHOT = false)"},
		{"not_ours", "SELECT customer, sum(amount) FROM orders WHERE placed_at > now() - interval '1 hour' GROUP BY customer"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.sql)))
			for b.Loop() {
				if _, _, err := Parse(bc.sql); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSplit(b *testing.B) {
	sql := benchSource + "; SELECT * FROM orders WHERE customer = 'a;b'; SHOW SOURCES; SUBSCRIBE orders"
	b.ReportAllocs()
	b.SetBytes(int64(len(sql)))
	for b.Loop() {
		if len(Split(sql)) != 4 {
			b.Fatal("bad split")
		}
	}
}

func BenchmarkString(b *testing.B) {
	stmt, _, err := Parse(benchSource)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = stmt.String()
	}
}
