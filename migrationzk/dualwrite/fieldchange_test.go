package dualwrite_test

import (
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
)

// valuesCase is a table row of TestDiffShowsValues: how desired differs
// from fullImage, and the text of the one change Diff plans, its value
// lines included.
type valuesCase struct {
	name    string
	current func(*dualwrite.Image)
	desired func(*dualwrite.Image)
	want    string
}

// Fault: none (pure). Each change Diff plans says, value by value, what
// ZooKeeper holds and what the change writes, in its text and in its
// JSON, which decodes to the same values.
func TestDiffShowsValues(t *testing.T) {
	for _, tc := range everyDomain(func(d domainRows) []valuesCase { return d.values }) {
		t.Run(tc.name, func(t *testing.T) {
			current, desired := fullImage(), fullImage()
			if tc.current != nil {
				tc.current(&current)
			}
			if tc.desired != nil {
				tc.desired(&desired)
			}
			p := dualwrite.Diff(current, desired)
			text := p.String()
			if got := text[:strings.LastIndex(strings.TrimSuffix(text, "\n"), "\n")+1]; got != tc.want {
				t.Fatalf("plan:\n%s\nwant\n%s", got, tc.want)
			}
			checkJSONRoundTrip(t, p)
		})
	}
}
