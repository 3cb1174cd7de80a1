package torture

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
)

// ring is a slog.Handler that keeps a writer's last records, to explain a
// writer that got stuck.
type ring struct {
	mu   *sync.Mutex
	recs *[]string
	max  int
}

// newRing returns a ring that keeps the last max records.
func newRing(max int) ring {
	return ring{mu: &sync.Mutex{}, recs: &[]string{}, max: max}
}

// Enabled keeps records of every level.
func (r ring) Enabled(context.Context, slog.Level) bool { return true }

// Handle formats rec on one line and keeps it, dropping the oldest past
// r.max.
func (r ring) Handle(_ context.Context, rec slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", rec.Time.Format("15:04:05.000"), rec.Message)
	rec.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	*r.recs = append(*r.recs, b.String())
	if len(*r.recs) > r.max {
		*r.recs = (*r.recs)[len(*r.recs)-r.max:]
	}
	return nil
}

// WithAttrs and WithGroup return r unchanged: the attributes and groups
// of a derived logger are not kept.
func (r ring) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r ring) WithGroup(string) slog.Handler      { return r }

// String returns the records kept, oldest first, one to a line.
func (r ring) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(*r.recs, "\n    ")
}
