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

func newRing(max int) ring {
	return ring{mu: &sync.Mutex{}, recs: &[]string{}, max: max}
}

func (r ring) Enabled(context.Context, slog.Level) bool { return true }

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

func (r ring) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r ring) WithGroup(string) slog.Handler      { return r }

func (r ring) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(*r.recs, "\n    ")
}
