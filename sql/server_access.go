package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/pgerr"
)

// SQL never reaches the server's files or programs. PostgreSQL lets
// superusers (and members of pg_read_server_files and its siblings) read
// and write files and run programs from SQL; streamdb refuses it to
// everyone: COPY … TO or FROM a file or PROGRAM (exec_copy.go), and the
// functions below. A role that is not a superuser gets PostgreSQL's own
// error for them; a superuser learns that streamdb does not do it.

// serverAccessFuncs are PostgreSQL's functions that read or write the
// server's files, list its directories, or act on its configuration.
var serverAccessFuncs = map[string]bool{
	"pg_read_file": true, "pg_read_binary_file": true, "pg_stat_file": true,
	"pg_ls_dir": true, "pg_ls_logdir": true, "pg_ls_waldir": true, "pg_ls_tmpdir": true,
	"pg_ls_archive_statusdir": true, "pg_ls_logicalsnapdir": true, "pg_ls_logicalmapdir": true,
	"pg_ls_replslotdir": true, "pg_current_logfile": true,
	"lo_import": true, "lo_export": true,
	"pg_file_write": true, "pg_file_rename": true, "pg_file_unlink": true, "pg_file_sync": true,
	"pg_logdir_ls": true, "pg_reload_conf": true, "pg_rotate_logfile": true,
}

// callableName returns the name of a function a statement calls,
// refusing those that reach the server's files.
func (b *binder) callableName(nodes []*pg_query.Node) (string, error) {
	name, err := funcName(nodes)
	if err != nil || !serverAccessFuncs[name] {
		return name, err
	}
	if b.sess != nil && b.cat != nil && b.cat.IsSuperuser(b.sess.role) {
		return "", pgerr.New(pgerr.FeatureNotSupported, "%s is not supported: SQL has no access to the server's files", name).
			WithHint("Read and write files on the client, with COPY … FROM STDIN and COPY … TO STDOUT (psql's \\copy).")
	}
	return "", pgerr.New(pgerr.InsufficientPrivilege, "permission denied for function %s", name)
}
