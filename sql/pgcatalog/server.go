package pgcatalog

// The relations that describe the server rather than the schema:
// databases, roles, settings, sessions, access methods, and the catalogs
// that are empty because streamdb has none of their objects.
func init() {
	define("pg_catalog", "pg_database", false, func(b *rowSet, src Source) {
		var acl any
		if a := src.DatabaseACL(); a != nil {
			acl = a
		}
		b.add("oid", databaseOID, "datname", src.Database(), "datdba", src.DatabaseOwner(), "encoding", 6,
			"datlocprovider", "c", "datallowconn", true, "datconnlimit", -1, "datcollate", "C", "datctype", "C",
			"dattablespace", 1663, "datacl", acl)
	})
	define("pg_catalog", "pg_roles", true, func(b *rowSet, src Source) {
		for _, r := range src.Roles() {
			addRole(b, r, true)
		}
	})
	define("pg_catalog", "pg_authid", false, func(b *rowSet, src Source) {
		for _, r := range src.Roles() {
			addRole(b, r, false)
		}
	})
	define("pg_catalog", "pg_user", true, func(b *rowSet, src Source) {
		for _, r := range src.Roles() {
			if r.Login {
				addUser(b, r, "********")
			}
		}
	})
	define("pg_catalog", "pg_shadow", true, func(b *rowSet, src Source) {
		for _, r := range src.Roles() {
			if r.Login {
				addUser(b, r, nullIfEmpty(r.Password))
			}
		}
	})
	define("pg_catalog", "pg_auth_members", false, func(b *rowSet, src Source) {
		for _, r := range src.Roles() {
			for _, m := range r.MemberOf {
				b.add("roleid", m.Role, "member", r.OID, "grantor", m.Grantor, "admin_option", m.Admin)
			}
		}
	})
	for _, name := range []string{"pg_authid", "pg_shadow"} {
		tableNames["pg_catalog."+name].SuperuserOnly = true
	}
	define("pg_catalog", "pg_am", false, func(b *rowSet, src Source) {
		b.add("oid", heapAM, "amname", "heap", "amhandler", uint32(3), "amtype", "t")
		b.add("oid", btreeAM, "amname", "btree", "amhandler", uint32(330), "amtype", "i")
	})
	define("pg_catalog", "pg_collation", false, func(b *rowSet, src Source) {
		b.add("oid", defaultCollationOID, "collname", "default", "collnamespace", NamespacePGCatalog,
			"collowner", superuserOID, "collprovider", "d", "collisdeterministic", true, "collencoding", -1)
		b.add("oid", uint32(950), "collname", "C", "collnamespace", NamespacePGCatalog,
			"collowner", superuserOID, "collprovider", "c", "collisdeterministic", true, "collencoding", -1,
			"collcollate", "C", "collctype", "C")
	})
	define("pg_catalog", "pg_tablespace", false, func(b *rowSet, src Source) {
		b.add("oid", uint32(1663), "spcname", "pg_default", "spcowner", superuserOID)
		b.add("oid", uint32(1664), "spcname", "pg_global", "spcowner", superuserOID)
	})
	define("pg_catalog", "pg_settings", true, func(b *rowSet, src Source) {
		for _, s := range src.Settings() {
			context, source := "user", "default"
			if s.ReadOnly {
				context = "internal"
			}
			if s.Changed {
				source = "session"
			}
			b.add("name", s.Name, "setting", s.Value, "category", "Client Connection Defaults",
				"short_desc", s.Description, "context", context, "vartype", "string", "source", source,
				"boot_val", s.Default, "reset_val", s.Default, "pending_restart", false)
		}
	})
	define("pg_catalog", "pg_stat_activity", true, func(b *rowSet, src Source) {
		for _, a := range src.Activity() {
			var addr any
			if a.ClientAddr != "" {
				addr = a.ClientAddr
			}
			b.add("datid", databaseOID, "datname", a.Database, "pid", a.PID, "usesysid", a.UserOID,
				"usename", a.User, "application_name", a.ApplicationName, "client_addr", addr,
				"client_port", a.ClientPort, "backend_start", a.BackendStart, "query_start", a.QueryStart,
				"state_change", a.QueryStart, "state", a.State, "query", a.Query, "backend_type", "client backend")
		}
	})
	for _, name := range []string{"pg_description", "pg_shdescription", "pg_inherits", "pg_enum", "pg_range",
		"pg_extension", "pg_policy", "pg_statistic_ext", "pg_publication", "pg_publication_namespace",
		"pg_publication_rel", "pg_rewrite", "pg_trigger", "pg_foreign_table",
		"pg_partitioned_table", "pg_event_trigger", "pg_auth_members"} {
		define("pg_catalog", name, false, nil)
	}
}

// addRole adds a row of pg_authid, or of pg_roles (masked), which shows
// ******** for every password, as PostgreSQL's does.
func addRole(b *rowSet, r *Role, masked bool) {
	pw := nullIfEmpty(r.Password)
	if masked {
		pw = "********"
	}
	b.add("oid", r.OID, "rolname", r.Name, "rolsuper", r.Super, "rolinherit", r.Inherit, "rolcreaterole", r.CreateRole,
		"rolcreatedb", r.CreateDB, "rolcanlogin", r.Login, "rolreplication", r.Replication, "rolconnlimit", r.ConnLimit,
		"rolpassword", pw, "rolbypassrls", r.BypassRLS, "rolvaliduntil", r.ValidUntil)
}

// addUser adds a row of pg_user or pg_shadow.
func addUser(b *rowSet, r *Role, passwd any) {
	b.add("usename", r.Name, "usesysid", r.OID, "usecreatedb", r.CreateDB, "usesuper", r.Super,
		"userepl", r.Replication, "usebypassrls", r.BypassRLS, "passwd", passwd, "valuntil", r.ValidUntil)
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
