package dualwrite_test

import (
	"errors"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
)

// TestNewRefusesInvalidOptions checks that no invalid argument of New
// silently means a default.
func TestNewRefusesInvalidOptions(t *testing.T) {
	c := newCluster(t)
	cases := map[string]func() (*dualwrite.Client, error){
		"nil Writer":               func() (*dualwrite.Client, error) { return dualwrite.New(nil) },
		"nil option":               func() (*dualwrite.Client, error) { return dualwrite.New(c.w, nil) },
		"WithPasswordEncoder(nil)": func() (*dualwrite.Client, error) { return dualwrite.New(c.w, dualwrite.WithPasswordEncoder(nil)) },
	}
	for name, build := range cases {
		client, err := build()
		if !errors.Is(err, migrationzk.ErrInvalidArgument) || client != nil {
			t.Errorf("%s: New = %v, %v; want nil and ErrInvalidArgument", name, client, err)
		}
	}
}
