package torture

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/torture/history"
)

// anomalies collects what the checks find while the run goes on: the
// first hundred, each logged as it is found.
type anomalies struct {
	t testing.TB
	// calls is the number of library calls made, which dates an anomaly.
	calls *atomic.Int64
	mu    sync.Mutex
	found []Anomaly
}

// add records what check found.
func (a *anomalies) add(check, format string, args ...any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	an := Anomaly{Check: check, Ops: int(a.calls.Load()), Text: fmt.Sprintf(format, args...)}
	if len(a.found) < 100 {
		a.found = append(a.found, an)
	}
	a.t.Logf("anomaly: %v", an)
}

// panicked records a call that panicked inside the library, with its
// stack.
func (a *anomalies) panicked(p *history.PanicError) {
	rc := p.Call
	a.add(CheckPanic, "client %d: %s at [%d, %d] panicked: %v\n%s", rc.Client, rc.Desc, rc.Call, rc.Return, p.Value, p.Stack)
}

// count returns the number of anomalies found so far.
func (a *anomalies) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.found)
}

// all returns the anomalies found so far.
func (a *anomalies) all() []Anomaly {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Anomaly(nil), a.found...)
}
