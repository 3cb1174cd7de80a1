package zkmetrics_test

import "github.com/kraftmigration/zkwriter/migrationzk"

// noConn is a connection a test's Writer never uses.
type noConn struct{ migrationzk.Conn }
