\d
\dt
\dv
\dm
\di
\l
\dn
\df
\dt pg_catalog.pg_class
\dv information_schema.tables
