package torture

import (
	"sync"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// disruptions are the faults that take a member away (killed, or cut
// from the others): one at a time, KillGap apart, taking turns.
var disruptions = []string{FaultKillMember, FaultKillClientMember, FaultIsolateLeader, FaultClientMinority}

// members takes the ensemble's members away, one at a time: killed and
// restarted, or cut from the others and healed.
type members struct {
	e *zktest.Ensemble
	// gap is the least time between a member's return and the next
	// disruption (Config.KillGap).
	gap   time.Duration
	tally *tally
	log   *anomalies

	mu       sync.Mutex
	down     *zktest.Member // the member away, if any
	lastUp   time.Time      // when the last one came back
	quiet    bool           // no more disruptions
	restarts sync.WaitGroup
}

// canDisrupt reports whether a disruption of kind can start now: no
// member is down or cut, the last restart or healing is gap behind, and
// no other disruption happened fewer times (they are rare: they take
// turns, one that could not act, say for want of a follower, going
// first).
func (m *members) canDisrupt(kind string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.down != nil || m.quiet || time.Since(m.lastUp) < m.gap {
		return false
	}
	for _, other := range disruptions {
		if m.tally.of(other) < m.tally.of(kind) {
			return false
		}
	}
	return true
}

// reserve marks mem as the member that is away, unless one already is
// or the last came back less than gap ago: the ensemble keeps its
// quorum.
func (m *members) reserve(mem *zktest.Member) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.down != nil || m.quiet || time.Since(m.lastUp) < m.gap {
		return false
	}
	m.down = mem
	m.restarts.Add(1)
	return true
}

// killAndRestart kills mem (SIGKILL), reserved, counts a fault of kind,
// and restarts mem after down in the background.
func (m *members) killAndRestart(mem *zktest.Member, kind string, down time.Duration) {
	if err := mem.Kill(); err != nil {
		m.log.add(CheckHarness, "harness: kill member %d: %v", mem.ID, err)
	}
	m.tally.count(kind)
	go func() {
		defer m.restarts.Done()
		time.Sleep(down)
		if err := mem.Restart(); err != nil {
			m.log.add(CheckHarness, "harness: restart member %d: %v", mem.ID, err)
		}
		m.back()
	}()
}

// cutAndHeal cuts mem, reserved, from the other members, counts a fault
// of kind, and heals after cut in the background.
func (m *members) cutAndHeal(mem *zktest.Member, kind string, cut time.Duration) {
	if err := m.e.Isolate(mem.ID); err != nil {
		m.log.add(CheckHarness, "harness: isolate member %d: %v", mem.ID, err)
	}
	m.tally.count(kind)
	go func() {
		defer m.restarts.Done()
		time.Sleep(cut)
		m.e.Heal()
		m.tally.count(FaultHeal)
		m.back()
	}()
}

// back records that the member away is back.
func (m *members) back() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.down, m.lastUp = nil, time.Now()
}

// running returns the address of a member that is not away.
func (m *members) running() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, mem := range m.e.Members {
		if mem != m.down {
			return mem.Addr
		}
	}
	return m.e.Servers[0]
}

// stop takes no member away any more.
func (m *members) stop() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.quiet = true
}

// wait waits until every member taken away is back.
func (m *members) wait() { m.restarts.Wait() }
