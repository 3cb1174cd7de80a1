package migrationzk_test

import "github.com/kraftmigration/zkwriter/migrationzk"

// deleteErr is the error of a ConditionalDelete.
func deleteErr(_ migrationzk.DeleteResult, err error) error { return err }
