package checker_test

import (
	"errors"
	"fmt"

	"github.com/kraftmigration/zkwriter/checker"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

func ExampleMigrationState() {
	intended := znode.Migration{KRaftMetadataOffset: 1234, KRaftControllerID: 3000, KRaftMetadataEpoch: 7, KRaftControllerEpoch: 5}.Encode()

	// The same checkpoint, written with another key order and spacing.
	current := []byte(`{"kraft_controller_epoch": 5, "kraft_metadata_epoch": 7, "kraft_controller_id": 3000, "kraft_metadata_offset": 1234, "version": 0}`)
	fmt.Println(checker.MigrationState{}.Landed(intended, current))

	// Another controller's checkpoint.
	current = znode.Migration{KRaftMetadataOffset: 1300, KRaftControllerID: 3001, KRaftMetadataEpoch: 8, KRaftControllerEpoch: 6}.Encode()
	fmt.Println(checker.MigrationState{}.Landed(intended, current))

	// Data that is not a checkpoint at all.
	ok, err := checker.MigrationState{}.Landed(intended, nil)
	fmt.Println(ok, errors.Is(err, znode.ErrNullData))
	// Output:
	// true <nil>
	// false <nil>
	// false true
}

func ExampleJSON() {
	fmt.Println(checker.JSON{}.Landed([]byte(`{"a":1,"b":[1,2]}`), []byte(`{ "b": [1.0, 2e0], "a": 10e-1 }`)))
	fmt.Println(checker.JSON{}.Landed([]byte(`{"b":[1,2]}`), []byte(`{"b":[2,1]}`)))
	fmt.Println(checker.JSON{}.Landed([]byte(`{"a":1}`), []byte(`{"a":`)))
	// Output:
	// true <nil>
	// false <nil>
	// false decode: invalid JSON: unexpected end of data (data: "{\"a\":")
}
