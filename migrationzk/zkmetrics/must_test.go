package zkmetrics_test

import (
	"github.com/kraftmigration/zkwriter/migrationzk"
)

// mustNew returns the Writer New made, and panics on its error: the tests'
// options are valid.
func mustNew(w *migrationzk.Writer, err error) *migrationzk.Writer {
	if err != nil {
		panic(err)
	}
	return w
}

// noConn is a connection a test's Writer never uses.
type noConn struct{ migrationzk.Conn }
