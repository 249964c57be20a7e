package e2e

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// viewQueries are the materialized views TestViewsOverSources keeps over an
// append source (orders), an upsert source (accounts), a Debezium source
// (customers) and a table (goals), with the order to read them in.
var viewQueries = []struct{ name, query, order string }{
	{"spend_by_region", `SELECT c.region, count(*) AS n, sum(o.amount) AS total FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.region`, "region"},
	{"accounts_by_status", `SELECT status, count(*) AS n, sum(balance) AS total, min(balance) AS lo, max(balance) AS hi FROM accounts GROUP BY status`, "status"},
	{"top_accounts", `SELECT key, balance FROM accounts ORDER BY balance DESC, key LIMIT 3`, "balance DESC, key"},
	{"goal_progress", `SELECT g.region, g.goal, coalesce(sum(o.amount), 0) AS reached FROM goals g LEFT JOIN customers c ON c.region = g.region LEFT JOIN orders o ON o.customer = c.id GROUP BY g.region, g.goal`, "region"},
	{"orphan_orders", `SELECT o.id, o.customer FROM orders o WHERE NOT EXISTS (SELECT 1 FROM customers c WHERE c.id = o.customer)`, "id"},
}

// viewModel is what the sources should hold after the records produced so
// far, computed without the engine.
type viewModel struct {
	orders     int
	cents      int64
	accounts   map[string]string // key → "status|balance"
	customers  map[int]string    // id → "id|name|region"
	nextOrder  int
	namesSoFar int
}

// TestViewsOverSources drives random appends, upserts, deletes, Debezium
// changes and table writes through materialized views over sources, and
// after every round checks that each view equals its query run from
// scratch and that the sources hold what a model of the records says, also
// across a restart of the server.
func TestViewsOverSources(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end Kafka test; skipped with -short")
	}
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 1))

	b := startBroker(t)
	b.createTopic("orders", 3)
	b.createTopic("accounts", 2)
	b.createTopic("customers", 1)
	srv := startServer(t, "")
	c := connect(t, srv.URL)
	c.exec(fmt.Sprintf(`CREATE CONNECTION kc TO KAFKA (BROKER '%s')`, b.addr))
	c.exec(`CREATE SOURCE orders (id int, customer int, amount numeric(10,2)) FROM KAFKA CONNECTION kc (TOPIC 'orders') FORMAT JSON`)
	c.exec(`CREATE SOURCE accounts (status text, balance int) FROM KAFKA CONNECTION kc (TOPIC 'accounts') KEY FORMAT TEXT VALUE FORMAT JSON ENVELOPE UPSERT`)
	c.exec(`CREATE SOURCE customers (id int, name text, region text) FROM KAFKA CONNECTION kc (TOPIC 'customers') FORMAT JSON ENVELOPE DEBEZIUM`)
	c.exec(`CREATE TABLE goals (region text PRIMARY KEY, goal numeric)`)
	c.exec(`INSERT INTO goals VALUES ('north', 100), ('south', 250)`)
	for _, v := range viewQueries {
		c.exec(fmt.Sprintf(`CREATE MATERIALIZED VIEW %s AS %s`, v.name, v.query))
	}

	m := &viewModel{accounts: map[string]string{}, customers: map[int]string{}}
	ends := map[string]map[int32]int64{"orders": {}, "accounts": {}, "customers": {}}
	for round := range 8 {
		if round == 4 {
			srv.Stop()
			srv = startServer(t, srv.Dir)
			c = connect(t, srv.URL)
			checkViews(t, c, m, "after the restart")
		}
		mergeEnds(ends["customers"], b.produce("customers", m.customerChanges(rng)...))
		mergeEnds(ends["orders"], b.produce("orders", m.orderRecords(rng)...))
		mergeEnds(ends["accounts"], b.produce("accounts", m.accountChanges(rng)...))
		region := []string{"north", "south", "east"}[rng.IntN(3)]
		c.exec(fmt.Sprintf(`BEGIN; DELETE FROM goals WHERE region = '%s'; INSERT INTO goals VALUES ('%s', %d); COMMIT`, region, region, rng.IntN(500)))
		for source, e := range ends {
			waitProgress(t, c, source, e)
		}
		checkViews(t, c, m, fmt.Sprintf("round %d", round))
	}
}

var regions = []string{"north", "south", "east", "west"}

// customerChanges creates, updates and deletes customers 1…8 as Debezium
// change events keyed by id.
func (m *viewModel) customerChanges(rng *rand.Rand) []*kgo.Record {
	var recs []*kgo.Record
	for range 1 + rng.IntN(6) {
		id := 1 + rng.IntN(8)
		key := []byte(fmt.Sprintf(`{"id": %d}`, id))
		_, exists := m.customers[id]
		if exists && rng.IntN(4) == 0 {
			recs = append(recs, record(0, key, []byte(`{"before": null, "after": null, "op": "d"}`)), record(0, key, nil))
			delete(m.customers, id)
			continue
		}
		m.namesSoFar++
		name, region := fmt.Sprintf("c%d", m.namesSoFar), regions[rng.IntN(len(regions))]
		op := "c"
		if exists {
			op = "u"
		}
		after := fmt.Sprintf(`{"id": %d, "name": "%s", "region": "%s"}`, id, name, region)
		recs = append(recs, record(0, key, []byte(fmt.Sprintf(`{"before": null, "after": %s, "op": "%s"}`, after, op))))
		m.customers[id] = fmt.Sprintf("%d|%s|%s", id, name, region)
	}
	return recs
}

// orderRecords appends orders of customers 1…10 (9 and 10 never exist).
func (m *viewModel) orderRecords(rng *rand.Rand) []*kgo.Record {
	var recs []*kgo.Record
	for range rng.IntN(40) {
		cents := int64(rng.IntN(100_000))
		v := fmt.Sprintf(`{"id": %d, "customer": %d, "amount": %d.%02d}`, m.nextOrder, 1+rng.IntN(10), cents/100, cents%100)
		recs = append(recs, record(int32(rng.IntN(3)), nil, []byte(v)))
		m.nextOrder++
		m.orders++
		m.cents += cents
	}
	return recs
}

// accountChanges upserts and deletes accounts a…l.
func (m *viewModel) accountChanges(rng *rand.Rand) []*kgo.Record {
	var recs []*kgo.Record
	for range rng.IntN(30) {
		key := string(rune('a' + rng.IntN(12)))
		// A key always goes to the same partition, as Kafka's
		// partitioner would send it, so its changes stay in order.
		p := int32(key[0] % 2)
		if rng.IntN(5) == 0 {
			recs = append(recs, record(p, []byte(key), nil))
			delete(m.accounts, key)
			continue
		}
		status, balance := []string{"open", "frozen", "closed"}[rng.IntN(3)], rng.IntN(1000)-200
		recs = append(recs, record(p, []byte(key), []byte(fmt.Sprintf(`{"status": "%s", "balance": %d}`, status, balance))))
		m.accounts[key] = fmt.Sprintf("%s|%d", status, balance)
	}
	return recs
}

// checkViews compares every view with its query run from scratch and the
// sources with the model.
func checkViews(t *testing.T, c *client, m *viewModel, when string) {
	t.Helper()
	for _, v := range viewQueries {
		got := c.rows(fmt.Sprintf(`SELECT * FROM %s ORDER BY %s`, v.name, v.order))
		want := c.rows(fmt.Sprintf(`SELECT * FROM (%s) q ORDER BY %s`, v.query, v.order))
		if got != want {
			t.Errorf("%s: view %s is\n%s\nbut its query returns\n%s", when, v.name, got, want)
		}
	}
	var accounts []string
	for _, k := range slices.Sorted(maps.Keys(m.accounts)) {
		accounts = append(accounts, k+"|"+m.accounts[k])
	}
	if got := c.rows(`SELECT key, status, balance FROM accounts ORDER BY key`); got != strings.Join(accounts, "\n") {
		t.Errorf("%s: accounts hold\n%s\nwant\n%s", when, got, strings.Join(accounts, "\n"))
	}
	var customers []string
	for _, id := range slices.Sorted(maps.Keys(m.customers)) {
		customers = append(customers, m.customers[id])
	}
	if got := c.rows(`SELECT id, name, region FROM customers ORDER BY id`); got != strings.Join(customers, "\n") {
		t.Errorf("%s: customers hold\n%s\nwant\n%s", when, got, strings.Join(customers, "\n"))
	}
	want := fmt.Sprintf("%d|%d.%02d", m.orders, m.cents/100, m.cents%100)
	if m.orders == 0 {
		want = "0|NULL"
	}
	if got := c.rows(`SELECT count(*), sum(amount) FROM orders`); got != want {
		t.Errorf("%s: orders count and sum = %s, want %s", when, got, want)
	}
}
