// Package pgcatalog generates PostgreSQL's system catalogs — the
// pg_catalog tables and views and the information_schema views that
// clients read to discover what a database holds — from streamdb's own
// catalog, so that psql's \d, JDBC's DatabaseMetaData, Grafana's query
// builder and every ORM find what they expect.
//
// # Design
//
// Nothing here is stored. Package sql implements Source over one published
// snapshot (its relations, settings and sessions) and, when a query reads
// a system relation, asks the relation's Table for its rows, computed from
// that Source at that moment; the rows feed the query's one-tick dataflow
// like the contents of any table. So a catalog query sees exactly the
// objects of the snapshot the rest of the query reads, and DDL needs no
// catalog maintenance.
//
// Column names and types are PostgreSQL 15's own (columns_gen.go, checked
// against a live server by columns_test.go), with a few substitutions for
// types streamdb lacks: int2vector and oidvector are
// arrays subscripted from 1, not 0, aclitem[] and anyarray are
// text[], pg_node_tree and inet are text, xid is oid, and the
// information_schema domains are their base types. Columns a row does not
// set are zero for numbers and booleans and NULL otherwise.
//
// # Object identifiers
//
// streamdb's object ids (20000 and up) are the OIDs of its relations. A
// table's primary key appears as an index and a constraint whose OIDs are
// derived from the table's (pkeyIndexOID, pkeyConstraintOID). Schemas have
// PostgreSQL's OIDs: pg_catalog 11, public 2200, information_schema 13207;
// system relations keep their PostgreSQL OIDs (pg_class is 1259), and
// pg_type and pg_proc rows are PostgreSQL 15's, restricted to the types
// streamdb supports and the functions its library implements
// (pg_type.tsv and pg_proc.tsv, exported from a PostgreSQL 15 server).
//
// # Functions over the catalog
//
// The functions that describe objects — pg_get_viewdef, pg_get_indexdef,
// pg_get_constraintdef, format_type's relatives, obj_description,
// pg_table_is_visible, the reg* name lookups — are computed here too
// (describe.go, names.go), from the same Source, so that a client sees one
// consistent description whether it reads a catalog column or calls a
// function.
//
// # mz_catalog
//
// A few of Materialize's mz_catalog relations (mzcatalog.go) are generated
// from the same Source for Materialize's tools (dbt-materialize lists a
// schema's relations from mz_objects); they are registered by name and
// OID only, so PostgreSQL's catalogs do not list them.
//
// Queries that reach for catalogs streamdb does not generate fail with
// 42P01 naming the relation: a missing catalog is never an empty answer.
package pgcatalog
