"""pgcli's completion queries, run through pgcli's own PGExecute (the
queries its completion refresher sends at startup and after DDL): schemas,
tables, views and their columns, foreign keys, functions (pg_depend,
pg_language, 'trigger'::regtype), data types, databases, search_path,
\\d-style view definitions, and the backslash commands of pgspecial that
pgcli runs (\\df, \\dt, \\d, \\ds, \\di, \\dn, \\du, \\l). Usage:
pgcli_compat.py HOST PORT USER PASSWORD DATABASE"""
import sys

from pgcli.pgexecute import PGExecute
from pgspecial.main import PGSpecial

from common import check, finish, run

HOST, PORT, USER, PASSWORD, DB = sys.argv[1:6]


def main():
    ex = PGExecute(database=DB, user=USER, password=PASSWORD, host=HOST, port=int(PORT), dsn=None)
    list(ex.run("DROP VIEW IF EXISTS cli_v; DROP TABLE IF EXISTS cli_t; "
                "CREATE TABLE cli_t (id serial PRIMARY KEY, name text); CREATE VIEW cli_v AS SELECT name FROM cli_t"))
    ex.conn.commit() if not ex.conn.autocommit else None
    schemata = list(ex.schemata())
    check("pgcli schemata", "public" in schemata, repr(schemata))
    tables = list(ex.tables())
    check("pgcli tables", ("public", "cli_t") in tables, repr(tables))
    views = list(ex.views())
    check("pgcli views", ("public", "cli_v") in views, repr(views))
    cols = [(c[1], c[2], c[3]) for c in ex.table_columns() if c[1] == "cli_t"]
    check("pgcli table_columns", [c[:2] for c in cols] == [("cli_t", "id"), ("cli_t", "name")], repr(cols))
    vcols = [(c[1], c[2]) for c in ex.view_columns() if c[1] == "cli_v"]
    check("pgcli view_columns", vcols == [("cli_v", "name")], repr(vcols))
    fks = list(ex.foreignkeys())
    check("pgcli foreignkeys", fks == [], repr(fks))
    funcs = list(ex.functions())
    names = {f.func_name for f in funcs}
    check("pgcli functions", {"lower", "generate_series", "now"} <= names, "%d functions" % len(funcs))
    types = list(ex.datatypes())
    check("pgcli datatypes", isinstance(types, list), repr(types[:3]))
    dbs = list(ex.databases())
    check("pgcli databases", DB in dbs, repr(dbs))
    check("pgcli search_path", "public" in ex.search_path(), repr(ex.search_path()))
    definition = ex.view_definition("cli_v")
    check("pgcli view_definition", "cli_t" in definition, repr(definition))
    special(ex)
    list(ex.run("DROP VIEW cli_v; DROP TABLE cli_t"))


def special(ex):
    """pgspecial's backslash commands, as pgcli runs them."""
    sp = PGSpecial()

    def rows(cmd):
        out = []
        for _, rs, headers, status, _, success, _ in ex.run(cmd, pgspecial=sp):
            check("pgcli %s succeeds" % cmd, success, repr(status))
            out.append((list(rs) if rs else [], headers, status))
        return out

    (fns, _, _), = rows("\\df lower")
    check("pgcli \\df lower", ("pg_catalog", "lower", "text", "text", "normal") in fns, repr(fns))
    (tabs, _, _), = rows("\\dt")
    check("pgcli \\dt", ("public", "cli_t", "table", USER) in tabs, repr(tabs))
    (cols, _, status), = rows("\\d cli_t")
    check("pgcli \\d cli_t", [c[:2] for c in cols] == [["id", "integer"], ["name", "text"]]
          and "nextval('cli_t_id_seq'::regclass)" in cols[0][2] and '"cli_t_pkey" PRIMARY KEY, btree (id)' in status,
          repr((cols, status)))
    (seqs, _, _), = rows("\\ds")
    check("pgcli \\ds", ("public", "cli_t_id_seq", "sequence", USER) in seqs, repr(seqs))
    (idx, _, _), = rows("\\di")
    check("pgcli \\di", ("public", "cli_t_pkey", "index", USER) in idx, repr(idx))
    (nss, _, _), = rows("\\dn")
    check("pgcli \\dn", "public" in [n[0] for n in nss], repr(nss))
    (roles, _, _), = rows("\\du")
    check("pgcli \\du", USER in [r[0] for r in roles], repr(roles))
    (dbs, _, _), = rows("\\l")
    check("pgcli \\l", DB in [d[0] for d in dbs], repr(dbs))


run("pgcli", main)
finish()
