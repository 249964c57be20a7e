// Exercise node-postgres (pg) against streamdb: connect with SCRAM-SHA-256
// (plain, and TLS with channel binding), a wrong password, DDL, parameterised writes, named prepared statements, every type read
// back in text and some in binary, SQLSTATEs and cancel. Prints one line
// per check: "ok <name>" or "FAIL <name>: <reason>".
// Usage: node compat.js HOST PORT PASSWORD
'use strict'

const pg = require('pg')

const [host, port, password] = process.argv.slice(2)
const base = { host, port: Number(port), user: 'streamdb', password, database: 'streamdb', ssl: false }
let failures = 0

function check(name, ok, detail) {
  if (ok) {
    console.log('ok ' + name)
  } else {
    failures++
    console.log('FAIL ' + name + ': ' + detail)
  }
}

// expectError runs a query that must fail with SQLSTATE code.
async function expectError(client, name, sql, code) {
  try {
    await client.query(sql)
    check(name, false, 'no error')
  } catch (e) {
    check(name, e.code === code, e.code + ' ' + e.message)
  }
}

// scram checks the SCRAM-SHA-256 exchange: the right password over TLS
// with channel binding (SCRAM-SHA-256-PLUS), and a wrong one.
async function scram() {
  const bound = new pg.Client({ ...base, ssl: { rejectUnauthorized: false }, enableChannelBinding: true })
  try {
    await bound.connect()
    const r = await bound.query('SELECT 1 AS one')
    check('scram with channel binding', r.rows[0].one === 1, JSON.stringify(r.rows))
    await bound.end()
  } catch (e) {
    check('scram with channel binding', false, e.code + ' ' + e.message)
  }
  const wrong = new pg.Client({ ...base, password: 'wrong' + password })
  try {
    await wrong.connect()
    check('wrong password', false, 'connected')
    await wrong.end()
  } catch (e) {
    check('wrong password', e.code === '28P01' && e.message === 'password authentication failed for user "streamdb"', e.code + ' ' + e.message)
  }
}

// subscribe reads a subscription as Materialize documents it for
// node-postgres: DECLARE … CURSOR FOR SUBSCRIBE in a transaction, then
// FETCH … WITH (timeout) in a loop, while another client writes.
async function subscribe() {
  const writer = new pg.Client(base)
  const c = new pg.Client(base)
  await writer.connect()
  await c.connect()
  await writer.query('CREATE TABLE nsub (id int PRIMARY KEY, v text)')
  await writer.query("INSERT INTO nsub VALUES (1, 'a')")
  await c.query('BEGIN')
  await c.query('DECLARE c CURSOR FOR SUBSCRIBE nsub')
  const row = (r) => [r.mz_diff, r.id, r.v].join(' ')
  const snap = await c.query("FETCH ALL c WITH (timeout = '5s')")
  check('subscribe snapshot', snap.rows.map(row).join(';') === '1 1 a' && snap.fields[0].name === 'mz_timestamp',
    JSON.stringify(snap.rows))
  await writer.query("UPDATE nsub SET v = 'b' WHERE id = 1")
  const upd = await c.query("FETCH ALL c WITH (timeout = '5s')")
  check('subscribe update', upd.rows.map(row).join(';') === '-1 1 a;1 1 b' && BigInt(upd.rows[0].mz_timestamp) > BigInt(snap.rows[0].mz_timestamp),
    JSON.stringify(upd.rows))
  const idle = await c.query("FETCH ALL c WITH (timeout = '200ms')")
  check('fetch timeout', idle.rows.length === 0, JSON.stringify(idle.rows))
  await c.query('COMMIT')
  await c.end()
  await writer.end()
}

async function main() {
  await scram()
  const c = new pg.Client(base)
  await c.connect()
  const v = await c.query('SHOW server_version_num')
  check('connect', Number(v.rows[0].server_version_num) >= 150000, JSON.stringify(v.rows))

  await c.query('CREATE TABLE norders (id int PRIMARY KEY, customer text NOT NULL, amount numeric(10,2), placed timestamptz)')
  await c.query('CREATE MATERIALIZED VIEW nspend AS SELECT customer, sum(amount) AS total, count(*) AS n FROM norders GROUP BY customer')
  await c.query(`CREATE TABLE ntypes (b boolean, i2 smallint, i4 int, i8 bigint, f4 real, f8 double precision, n numeric(8,3),
    t text, vc varchar(5), d date, ts timestamp, tstz timestamptz, iv interval, u uuid, j json, jb jsonb, ai int[], at text[], by bytea)`)
  await c.query(`INSERT INTO ntypes VALUES (true, 2, 4, 8, 1.5, 2.25, 12.345, 'text', 'vc', '2024-02-29', '2024-02-29 12:34:56',
    '2024-02-29 12:34:56+00', '1 day 02:00:00', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": 1}', '{"b": [1, 2]}', '{1,2}',
    '{"x","y z"}', '\\x0102')`)
  check('ddl', true)

  const rows = [[1, 'ada', '12.50', new Date('2024-01-01T10:00:00Z')], [2, 'bob', 3, null], [3, 'ada', 7.5, new Date('2024-01-03T10:00:00Z')]]
  for (const r of rows) {
    await c.query('INSERT INTO norders VALUES ($1, $2, $3, $4)', r)
  }
  const spend = await c.query('SELECT customer, total, n FROM nspend ORDER BY customer')
  const got = spend.rows.map((r) => `${r.customer}|${r.total}|${r.n}`).join(';')
  check('parameterised writes and view', got === 'ada|20.00|2;bob|3.00|1', got)

  // A named statement is prepared once and executed with new parameters.
  const named = []
  for (const id of [1, 2]) {
    const r = await c.query({ name: 'by-id', text: 'SELECT customer FROM norders WHERE id = $1', values: [id] })
    named.push(r.rows[0].customer)
  }
  check('named prepared statement', named.join(',') === 'ada,bob', named.join(','))

  const t = (await c.query('SELECT * FROM ntypes')).rows[0]
  const text = [t.b, t.i2, t.i4, t.i8, t.f4, t.f8, t.n, t.t, t.vc, t.d.toISOString(), t.ts.toISOString(), t.tstz.toISOString(),
    JSON.stringify(t.iv), t.u, JSON.stringify(t.j), JSON.stringify(t.jb), JSON.stringify(t.ai), JSON.stringify(t.at),
    t.by.toString('hex')].join(' ')
  // pg parses date and timestamp without time zone as local time; the
  // test runs with TZ=UTC.
  const wantText = 'true 2 4 8 1.5 2.25 12.345 text vc 2024-02-29T00:00:00.000Z 2024-02-29T12:34:56.000Z 2024-02-29T12:34:56.000Z ' +
    '{"days":1,"hours":2} a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 {"a":1} {"b":[1,2]} [1,2] ["x","y z"] 0102'
  check('every type (text)', text === wantText, text)

  const bin = (await c.query({ text: 'SELECT b, i2, i4, i8, f8, t, tstz FROM ntypes', binary: true })).rows[0]
  const binText = [bin.b, bin.i2, bin.i4, bin.i8, bin.f8, bin.t, bin.tstz.toISOString()].join(' ')
  check('binary results', binText === 'true 2 4 8 2.25 text 2024-02-29T12:34:56.000Z', binText)

  await expectError(c, 'error 23505', "INSERT INTO norders VALUES (1, 'dup', 1, NULL)", '23505')
  await expectError(c, 'error 42P01', 'SELECT * FROM nope', '42P01')
  await expectError(c, 'error 22012', 'SELECT 1/0', '22012')
  await expectError(c, 'error 42601', 'SELEC 1', '42601')

  await c.query('BEGIN')
  await c.query("INSERT INTO norders VALUES (50, 'tx', 1, NULL)")
  await c.query('ROLLBACK')
  const n = (await c.query('SELECT count(*) AS n FROM norders WHERE id = 50')).rows[0].n
  check('rollback', n === '0', n)

  const slow = 'SELECT count(*) FROM generate_series(1, 3000) a, generate_series(1, 3000) b'
  const start = Date.now()
  const query = new pg.Query(slow)
  const done = new Promise((resolve, reject) => {
    query.on('end', resolve)
    query.on('error', reject)
  })
  c.query(query)
  // pg cancels through a second client, which sends the CancelRequest.
  setTimeout(() => new pg.Client(base).cancel(c, query), 300)
  try {
    await done
    check('cancel', false, 'query finished')
  } catch (e) {
    check('cancel', e.code === '57014' && Date.now() - start < 10000, e.code + ' ' + e.message)
  }
  const one = (await c.query('SELECT 1 AS one')).rows[0].one
  check('connection after cancel', one === 1, one)
  await c.end()
  await subscribe()

  const tls = new pg.Client({ ...base, ssl: { rejectUnauthorized: false } })
  try {
    await tls.connect()
    const r = await tls.query('SELECT 1 AS one')
    check('tls', tls.connection.stream.encrypted === true && r.rows[0].one === 1, JSON.stringify(r.rows))
    await tls.end()
  } catch (e) {
    check('tls', false, e.code + ' ' + e.message)
  }
  process.exit(failures === 0 ? 0 : 1)
}

main().catch((e) => {
  console.log('FAIL unexpected: ' + (e.stack || e))
  process.exit(1)
})
