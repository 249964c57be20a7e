"""Exercise psycopg 3 against streamdb.

Connect with SCRAM-SHA-256 (plain, and over TLS with channel binding),
DDL, executemany, text and binary cursors over every type, COPY in and
out, SQLSTATEs, cancel, and a subscription read with DECLARE and FETCH. Prints one line per check: "ok <name>" or
"FAIL <name>: <reason>". Usage: compat.py HOST PORT PASSWORD
"""
import sys
import threading
import time

import psycopg
import psycopg.conninfo

failures = 0


def check(name, ok, detail=""):
    global failures
    if ok:
        print("ok", name)
    else:
        failures += 1
        print("FAIL %s: %s" % (name, detail))


def scram(dsn, password):
    """The server asks for SCRAM-SHA-256: the right password gets in, also
    over TLS with channel binding required; a wrong one gets 28P01."""
    for name, extra in (("scram", {}), ("scram with channel binding", {"sslmode": "require", "channel_binding": "require"})):
        try:
            with psycopg.connect(psycopg.conninfo.make_conninfo(dsn, **extra)) as conn:
                check(name, conn.execute("SELECT 1").fetchone()[0] == 1)
        except psycopg.Error as e:
            check(name, False, "%s %s" % (e.sqlstate, e))
    try:
        psycopg.connect(psycopg.conninfo.make_conninfo(dsn, password="wrong" + password)).close()
        check("wrong password", False, "connected")
    except psycopg.OperationalError as e:
        want = 'password authentication failed for user "streamdb"'
        check("wrong password", want in str(e), str(e))


def subscribe(dsn):
    """A subscription read as Materialize tells Python users to: DECLARE
    … CURSOR FOR SUBSCRIBE in a transaction and FETCH … WITH (timeout)
    through cursor.execute, while another connection writes."""
    with psycopg.connect(dsn, autocommit=True) as writer, psycopg.connect(dsn) as conn:
        writer.execute("CREATE TABLE psub (id int PRIMARY KEY, v text)")
        writer.execute("INSERT INTO psub VALUES (1, 'a')")
        with conn.cursor() as cur:
            cur.execute("DECLARE c CURSOR FOR SUBSCRIBE psub")
            cur.execute("FETCH ALL c WITH (timeout = '5s')")
            rows = cur.fetchall()
            snap = [tuple(r[1:]) for r in rows]
            check("subscribe snapshot", snap == [(1, 1, "a")] and cur.description[0].name == "mz_timestamp", rows)
            writer.execute("UPDATE psub SET v = 'b' WHERE id = 1")
            cur.execute("FETCH ALL c WITH (timeout = '5s')")
            changes = cur.fetchall()
            got = [tuple(r[1:]) for r in changes]
            check("subscribe update", got == [(-1, 1, "a"), (1, 1, "b")] and changes[0][0] > rows[0][0], changes)
            start = time.time()
            cur.execute("FETCH ALL c WITH (timeout = '200ms')")
            idle = cur.fetchall()
            check("fetch timeout", idle == [] and time.time() - start < 5, idle)
        conn.commit()


def main():
    host, port, password = sys.argv[1], sys.argv[2], sys.argv[3]
    dsn = psycopg.conninfo.make_conninfo(host=host, port=port, user="streamdb", dbname="streamdb", sslmode="disable",
                                         password=password)
    scram(dsn, password)
    subscribe(dsn)
    with psycopg.connect(dsn, autocommit=True) as conn:
        check("connect", conn.info.server_version >= 150000, conn.info.server_version)
        conn.execute("CREATE TABLE porders (id int PRIMARY KEY, customer text NOT NULL, amount numeric(10,2))")
        conn.execute("CREATE MATERIALIZED VIEW pspend AS SELECT customer, sum(amount) AS total, count(*) AS n FROM porders GROUP BY customer")
        conn.execute("CREATE TABLE ptypes (b boolean, i2 smallint, i4 int, i8 bigint, f8 double precision, n numeric(8,3), "
                     "t text, d date, ts timestamp, tstz timestamptz, iv interval, u uuid, jb jsonb, ai int[], by bytea)")
        conn.execute("INSERT INTO ptypes VALUES (true, 2, 4, 8, 2.25, 12.345, 'text', '2024-02-29', '2024-02-29 12:34:56', "
                     "'2024-02-29 12:34:56+00', '1 day 02:00:00', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{\"a\": 1}', "
                     "'{1,2}', '\\x0102')")
        check("ddl", True)
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO porders VALUES (%s, %s, %s)", [(1, "ada", 12.5), (2, "bob", 3), (3, "ada", 7.5)])
            cur.execute("SELECT customer, total, n FROM pspend ORDER BY customer")
            got = cur.fetchall()
            check("executemany and view", [(r[0], str(r[1]), r[2]) for r in got] == [("ada", "20.00", 2), ("bob", "3.00", 1)], got)
        for binary in (False, True):
            with conn.cursor(binary=binary) as cur:
                cur.execute("SELECT * FROM ptypes")
                row = cur.fetchone()
                got = " ".join(str(v) for v in row)
                want = ("True 2 4 8 2.25 12.345 text 2024-02-29 2024-02-29 12:34:56 2024-02-29 12:34:56+00:00 "
                        "1 day, 2:00:00 a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 {'a': 1} [1, 2] b'\\x01\\x02'")
                check("every type (%s)" % ("binary" if binary else "text"), got == want, got)
        with conn.cursor() as cur:
            with cur.copy("COPY porders (id, customer, amount) FROM STDIN") as copy:
                for i in range(10, 20):
                    copy.write_row((i, "cy", i))
            cur.execute("SELECT n FROM pspend WHERE customer = 'cy'")
            check("copy in", cur.fetchone()[0] == 10)
            out = []
            with cur.copy("COPY (SELECT id, customer FROM porders WHERE id < 3 ORDER BY id) TO STDOUT") as copy:
                for row in copy.rows():
                    out.append(row)
            check("copy out", out == [("1", "ada"), ("2", "bob")], out)
        for sql, code in (("INSERT INTO porders VALUES (1, 'dup', 1)", "23505"), ("SELECT * FROM nope", "42P01"),
                          ("SELECT 1/0", "22012")):
            try:
                conn.execute(sql)
                check("error " + code, False, "no error")
            except psycopg.Error as e:
                check("error " + code, e.sqlstate == code, "%s %s" % (e.sqlstate, e))
        # psycopg 3 outside autocommit: an implicit BEGIN, parameters
        # bound server-side.
    with psycopg.connect(dsn) as conn:
        conn.execute("INSERT INTO porders VALUES (%s, %s, %s)", (50, "tx", 1))
        conn.rollback()
        n = conn.execute("SELECT count(*) FROM porders WHERE id = 50").fetchone()[0]
        check("rollback", n == 0, n)
        conn.execute("INSERT INTO porders VALUES (%s, %s, %s)", (51, "tx", 1))
        conn.commit()
        n = conn.execute("SELECT count(*) FROM porders WHERE id = 51").fetchone()[0]
        check("commit", n == 1, n)
        # A server-side cursor: DECLARE, Describe of the portal, FETCH.
        with conn.cursor(name="big") as cur:
            cur.itersize = 100
            cur.execute("SELECT g, 'x' || g FROM generate_series(1, 2500) g")
            rows = list(cur)
            check("named cursor", len(rows) == 2500 and rows[-1] == (2500, "x2500") and cur.description[0].name == "g",
                  "%d rows" % len(rows))
        conn.commit()
    with psycopg.connect(dsn, autocommit=True) as conn:
        timer = threading.Timer(0.3, conn.cancel)
        timer.start()
        start = time.time()
        try:
            conn.execute("SELECT count(*) FROM generate_series(1, 3000) a, generate_series(1, 3000) b")
            check("cancel", False, "query finished")
        except psycopg.errors.QueryCanceled:
            check("cancel", time.time() - start < 10)
        check("after cancel", conn.execute("SELECT 1").fetchone()[0] == 1)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
