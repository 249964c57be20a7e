package e2e

import "testing"

func TestPGSmoke(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(`CREATE TABLE t (id int PRIMARY KEY, v text, n numeric(10,2)); INSERT INTO t VALUES (1, 'a', 1.5), (2, 'b', NULL);
		CREATE PUBLICATION pub FOR ALL TABLES`)
	srv := startServer(t, "")
	c := connect(t, srv.URL)
	c.exec(`CREATE SECRET pgpass AS 'x'`)
	c.exec(u.connectionSQL("pg"))
	c.exec(`CREATE SOURCE app FROM POSTGRES CONNECTION pg (PUBLICATION 'pub') FOR ALL TABLES`)
	sameAsUpstream(c, u, `SELECT * FROM t ORDER BY id`)
	c.exec(`CREATE MATERIALIZED VIEW mv AS SELECT * FROM t`)
	u.exec(`INSERT INTO t VALUES (3, 'c', 2); UPDATE t SET v = 'z' WHERE id = 1; DELETE FROM t WHERE id = 2`)
	c.waitRows(`SELECT * FROM mv ORDER BY id`, u.rows(`SELECT * FROM t ORDER BY id`))
	u.exec(`ALTER TABLE t ADD COLUMN w int DEFAULT 5; INSERT INTO t VALUES (4, 'd', 3, 6)`)
	sameAsUpstream(c, u, `SELECT * FROM t ORDER BY id`)
	t.Log(c.rows(`SELECT * FROM mv ORDER BY id`))
	t.Log(c.rows(`SHOW SOURCES`))
	t.Log(c.rows(`SHOW CREATE SOURCE app`))
	out, err := runShell("psql -X -h 127.0.0.1 -p " + srv.Addr[10:] + " -U streamdb streamdb -c '\\d' -c '\\d t' -c '\\dt'")
	t.Log(out, err)
	c.exec(`DROP SOURCE app CASCADE`)
	t.Log(u.slots())
}
