package bench_test

import (
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
)

// mustNew returns the Writer migrationzk.New made, and panics on its
// error: the tests' options are valid.
func mustNew(w *migrationzk.Writer, err error) *migrationzk.Writer {
	if err != nil {
		panic(err)
	}
	return w
}

// mustClient returns the Client dualwrite.New made, and panics on its
// error: the tests' Writers are never nil.
func mustClient(c *dualwrite.Client, err error) *dualwrite.Client {
	if err != nil {
		panic(err)
	}
	return c
}
