package history

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Identity is who claims /controller_epoch: a KRaft controller's id and
// epoch, or, for a write that names no controller (a raise alone),
// another party that no claimant can share a tenure with.
type Identity struct {
	ID, Epoch int32
	Anonymous bool
}

// String formats the identity for a report.
func (i Identity) String() string {
	if i.Anonymous {
		return "a write naming no controller"
	}
	return fmt.Sprintf("controller %d epoch %d", i.ID, i.Epoch)
}

// ClaimRecord is a claim of /controller_epoch that its claimant was told
// landed (a writer's, Client > 0) or that landed (another party's, Client
// 0): the version and value /controller_epoch then held.
type ClaimRecord struct {
	Client int
	Who    Identity
	// RollbackSafe says the claim was made with rollback-safe epochs.
	RollbackSafe   bool
	Version, Value int32
	At             Span
}

// AddClaim records a claim.
func (h *History) AddClaim(c ClaimRecord) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.claims = append(h.claims, c)
}

// epochPath is the full path of /controller_epoch.
func (h *History) epochPath() string { return h.root + "/controller_epoch" }

// Invariants runs the checks that hold of every history whatever its
// faults, and so of every part of one: what they find in the history
// recorded so far holds of the whole.
func (h *History) Invariants() []Finding {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.invariants()
}

// Claims returns the claims recorded, in the order recorded.
func (h *History) Claims() []ClaimRecord {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]ClaimRecord(nil), h.claims...)
}

// TenureEnd is the earliest moment ZooKeeper is known to have seen a
// claim after client's at /controller_epoch version v (Never if none).
func (h *History) TenureEnd(client int, v int32) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.tenureEnd(client, v)
}

// invariants runs the checks that hold of every history whatever its
// faults. h.mu must be held.
func (h *History) invariants() []Finding {
	found := h.oneTenurePerEpoch()
	found = append(found, h.rollbackSafeEpochs()...)
	return append(found, h.fencedWritesWithoutTenure()...)
}

// oneTenurePerEpoch finds /controller_epoch versions that more than one
// identity was told it holds (or that one was told it holds although
// another party produced it), and a claim sharing a version with an
// earlier one of the same identity, the documented resume, after that
// claim's tenure had ended. h.mu must be held.
func (h *History) oneTenurePerEpoch() []Finding {
	byVersion := map[int32][]ClaimRecord{}
	for _, c := range h.claims {
		byVersion[c.Version] = append(byVersion[c.Version], c)
	}
	var found []Finding
	for _, v := range sortedKeys(byVersion) {
		cs := byVersion[v]
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].At.Call < cs[j].At.Call })
		for _, c := range cs[1:] {
			first := cs[0]
			switch {
			case c.Who != first.Who || c.Who.Anonymous:
				found = append(found, Finding{CheckTenure, fmt.Sprintf("/controller_epoch version %d held by %s (client %d at [%d, %d]) and by %s (client %d at [%d, %d])",
					v, first.Who, first.Client, first.At.Call, first.At.Return, c.Who, c.Client, c.At.Call, c.At.Return)})
			case c.At.Call > h.tenureEnd(first.Client, v):
				found = append(found, Finding{CheckTenure, fmt.Sprintf("%s resumed /controller_epoch version %d at %d, after the claim that made it ended at %d",
					c.Who, v, c.At.Call, h.tenureEnd(first.Client, v))})
			}
		}
	}
	return found
}

// tenureEnd is the earliest moment ZooKeeper is known to have seen a claim
// after client's at /controller_epoch version v: the return of a write
// of another party or client to a later version, or of a read that saw
// one. h.mu must be held.
func (h *History) tenureEnd(client int, v int32) int64 {
	end := Never
	for _, s := range h.successes {
		if s.Path == h.epochPath() && s.Client != client && s.Version > v {
			end = min(end, s.At.Return)
		}
	}
	for _, f := range h.foreign[h.epochPath()] {
		if f.Landed && f.Version > v {
			end = min(end, f.Return)
		}
	}
	for _, o := range h.groups[MigrationGroup] {
		for _, ob := range o.Step.Obs {
			if o.Client == 0 && o.Step.Kind == StepRead && ob.Slot == SlotEpoch && ob.Val.Exists && ob.Val.Version > v {
				end = min(end, o.Return)
			}
		}
	}
	return end
}

// rollbackSafeEpochs finds claims with rollback-safe epochs that left
// /controller_epoch below the claimant's KRaft epoch, and partition states
// written under such a claim whose controller_epoch is above the
// /controller_epoch it holds. h.mu must be held.
func (h *History) rollbackSafeEpochs() []Finding {
	var found []Finding
	held := map[int]ClaimRecord{}
	for _, c := range h.claims {
		if c.Client == 0 || !c.RollbackSafe {
			continue
		}
		held[c.Client] = c
		if c.Value < c.Who.Epoch {
			found = append(found, Finding{CheckRollbackSafe, fmt.Sprintf("claim by %s with rollback-safe epochs left /controller_epoch at %d (version %d)", c.Who, c.Value, c.Version)})
		}
	}
	for _, s := range h.successes {
		c, ok := held[s.Client]
		if !ok || !strings.HasSuffix(s.Path, "/state") || s.Data == "" {
			continue
		}
		st, err := znode.DecodePartitionState([]byte(s.Data))
		if err == nil && st.ControllerEpoch > c.Value {
			found = append(found, Finding{CheckRollbackSafe, fmt.Sprintf("client %d: %s wrote controller_epoch %d above the /controller_epoch %d its claim holds",
				s.Client, s.What, st.ControllerEpoch, c.Value)})
		}
	}
	return found
}

// fencedWritesWithoutTenure finds writes a client was told landed although
// its call started after its tenure had ended: after ZooKeeper was known
// to have seen a later claim than the client's (tenureEnd). h.mu must be
// held.
func (h *History) fencedWritesWithoutTenure() []Finding {
	var found []Finding
	for _, c := range h.claims {
		if c.Client == 0 {
			continue
		}
		end := h.tenureEnd(c.Client, c.Version)
		for _, s := range h.successes {
			if s.Client == c.Client && s.Path != h.epochPath() && s.At.Call > end {
				found = append(found, Finding{CheckAfterTenure, fmt.Sprintf("client %d: %s accepted although its tenure (claim at /controller_epoch version %d) ended at %d",
					c.Client, s.What, c.Version, end)})
			}
		}
	}
	return found
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[int32]V) []int32 {
	keys := make([]int32, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}
