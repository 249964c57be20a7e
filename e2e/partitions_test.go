package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// TestPartitionAddedWhileRunning grows a topic under a running source and
// a view over it: the new partitions are read from their beginning and
// the view counts their records once.
func TestPartitionAddedWhileRunning(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end Kafka test; skipped with -short")
	}
	b := startBroker(t)
	b.createTopic("grow", 2)
	srv := startServer(t, "")
	c := connect(t, srv.URL)
	c.exec(fmt.Sprintf(`CREATE CONNECTION kc TO KAFKA (BROKER '%s')`, b.addr))
	c.exec(`CREATE SOURCE grow FROM KAFKA CONNECTION kc (TOPIC 'grow') FORMAT TEXT INCLUDE PARTITION`)
	c.exec(`CREATE MATERIALIZED VIEW grow_counts AS SELECT partition, count(*) AS n FROM grow GROUP BY partition`)

	ends := map[int32]int64{}
	sent := map[int32]int{}
	produce := func(partitions []int32, n int) {
		t.Helper()
		for _, p := range partitions {
			for range n {
				for part, end := range b.produce("grow", record(p, nil, []byte(fmt.Sprintf("p%d-%d", p, sent[p])))) {
					ends[part] = end
				}
				sent[p]++
			}
		}
	}
	produce([]int32{0, 1}, 5)
	waitProgress(t, c, "grow", ends)
	c.waitRows(`SELECT partition, n FROM grow_counts ORDER BY partition`, "0|5\n1|5")

	b.addPartitions("grow", 2)
	produce([]int32{0, 2, 3}, 3)
	waitProgress(t, c, "grow", ends)
	c.waitRows(`SELECT partition, n FROM grow_counts ORDER BY partition`, "0|8\n1|5\n2|3\n3|3")
	var want []string
	for _, p := range []int{2, 3} {
		for i := range 3 {
			want = append(want, fmt.Sprintf("p%d-%d", p, i))
		}
	}
	if got := c.rows(`SELECT text FROM grow WHERE partition >= 2 ORDER BY text`); got != strings.Join(want, "\n") {
		t.Errorf("records of the new partitions:\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	if got := c.rows(`SELECT count(*), count(DISTINCT text) FROM grow`); got != "19|19" {
		t.Errorf("count and distinct records = %s, want 19|19", got)
	}
}
