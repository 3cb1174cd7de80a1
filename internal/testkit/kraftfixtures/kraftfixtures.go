// Package kraftfixtures finds, for tests, the KRaft metadata fixtures
// that Kafka 3.9's own code wrote (../shared/kraft-fixtures beside the
// module root), and reads the JSON Kafka wrote beside them.
package kraftfixtures

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// EnvDir names the variable that overrides where the fixtures are.
const EnvDir = "ZKWRITER_KRAFT_FIXTURES"

// EnvRequire names the variable that, set to 1, fails a test that finds
// no fixtures instead of skipping it.
const EnvRequire = "ZKWRITER_REQUIRE_KRAFT_FIXTURES"

// Dir returns the fixtures' directory: $ZKWRITER_KRAFT_FIXTURES, or
// ../shared/kraft-fixtures from the module root. Where it is absent the
// test is skipped with a message, or failed under
// ZKWRITER_REQUIRE_KRAFT_FIXTURES=1.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir, err := find()
	if err == nil {
		return dir
	}
	if os.Getenv(EnvRequire) == "1" {
		tb.Fatalf("KRaft fixtures required (%s=1): %v", EnvRequire, err)
	}
	tb.Skipf("KRaft fixtures absent, test skipped: %v (set %s, or place them in ../shared/kraft-fixtures)", err, EnvDir)
	return ""
}

// find locates the fixtures.
func find() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return checkDir(d)
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	return checkDir(filepath.Join(root, "..", "shared", "kraft-fixtures"))
}

// checkDir reports whether d holds the fixtures' records and scenarios.
func checkDir(d string) (string, error) {
	for _, sub := range []string{"records", "scenarios"} {
		if st, err := os.Stat(filepath.Join(d, sub)); err != nil || !st.IsDir() {
			return "", errors.New(filepath.Join(d, sub) + " is not a directory")
		}
	}
	return d, nil
}

// moduleRoot walks up from the working directory to the one holding
// go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
