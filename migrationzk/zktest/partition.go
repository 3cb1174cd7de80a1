package zktest

import (
	"context"
	"fmt"
	"time"
)

// Partition cuts the ensemble's members apart into groups: members reach
// each other's quorum and election ports within a group and not across,
// as across a network partition. A member named in no group is a group of
// its own. Clients still reach every member. It replaces any earlier
// partition; Heal ends it.
//
// A cut is silent: what members send across it is lost, and each side
// notices only when its own timeouts expire (for a follower, ZooKeeper's
// syncLimit ticks without word from its leader). A group without a
// majority then stops serving clients, after a while during which its
// members may still answer reads from what they last applied.
func (e *Ensemble) Partition(groups ...[]int) error {
	group := map[int]int{}
	for g, ids := range groups {
		for _, id := range ids {
			if id < 1 || id > len(e.Members) {
				return fmt.Errorf("zktest: partition: no member %d in an ensemble of %d", id, len(e.Members))
			}
			if _, dup := group[id]; dup {
				return fmt.Errorf("zktest: partition: member %d named twice", id)
			}
			group[id] = g
		}
	}
	for id := 1; id <= len(e.Members); id++ {
		if _, ok := group[id]; !ok {
			group[id] = len(groups) + id // alone
		}
	}
	cut := map[link]bool{}
	for i := 1; i <= len(e.Members); i++ {
		for j := i + 1; j <= len(e.Members); j++ {
			if group[i] != group[j] {
				cut[link{i, j}] = true
			}
		}
	}
	e.net.setCut(cut)
	return nil
}

// Isolate cuts member id from every other member, which stay connected
// to each other; see Partition.
func (e *Ensemble) Isolate(id int) error {
	var others []int
	for _, m := range e.Members {
		if m.ID != id {
			others = append(others, m.ID)
		}
	}
	if id < 1 || id > len(e.Members) {
		return fmt.Errorf("zktest: isolate: no member %d in an ensemble of %d", id, len(e.Members))
	}
	return e.Partition(others)
}

// Heal ends a partition: every member reaches every other again. The
// connections between members that lived through the cut are closed, as
// their streams lost data, and members connect anew.
func (e *Ensemble) Heal() { e.net.setCut(map[link]bool{}) }

// MemberStatus is a member's account of itself.
type MemberStatus struct {
	// Mode is "leader" or "follower", or "" while the member serves no
	// clients: it is looking for a leader, or cannot reach a majority.
	Mode string
	// Zxid is the id of the last transaction the member applied; zero
	// when Mode is "", since a member that serves no clients does not say.
	Zxid int64
}

// Status asks the member for its mode and last zxid (ZooKeeper's srvr
// command). It fails when the member does not answer within ctx, or
// within a second.
func (m *Member) Status(ctx context.Context) (MemberStatus, error) {
	timeout := time.Second
	if d, ok := ctx.Deadline(); ok && time.Until(d) < timeout {
		timeout = time.Until(d)
	}
	if err := ctx.Err(); err != nil {
		return MemberStatus{}, err
	}
	st, err := m.proc.Status(timeout)
	if err != nil {
		return MemberStatus{}, fmt.Errorf("zktest: member %d status: %w", m.ID, err)
	}
	return MemberStatus(st), nil
}

// WaitLeader waits until one of the members with the given IDs (all
// members when none is given) leads and the others of them follow it, and
// returns the leader. After a partition, name a majority's members to
// learn whom they elected. It returns ctx's error, with the modes last
// seen, when that does not happen in time.
func (e *Ensemble) WaitLeader(ctx context.Context, ids ...int) (*Member, error) {
	members, err := e.membersByID(ids)
	if err != nil {
		return nil, err
	}
	var seen []string
	for {
		leader, modes := e.agreedLeader(ctx, members)
		if leader != nil {
			return leader, nil
		}
		seen = modes
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("zktest: no leader among members %v (modes %q): %w", ids, seen, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// agreedLeader returns the leader of members if exactly one leads and
// the others follow, and the modes seen.
func (e *Ensemble) agreedLeader(ctx context.Context, members []*Member) (*Member, []string) {
	var leader *Member
	modes := make([]string, len(members))
	followers := 0
	for i, m := range members {
		st, err := m.Status(ctx)
		modes[i] = st.Mode
		switch {
		case err != nil:
			modes[i] = err.Error()
		case st.Mode == "leader" && leader == nil:
			leader = m
		case st.Mode == "follower":
			followers++
		}
	}
	if leader == nil || followers != len(members)-1 {
		return nil, modes
	}
	return leader, modes
}

func (e *Ensemble) membersByID(ids []int) ([]*Member, error) {
	if len(ids) == 0 {
		return e.Members, nil
	}
	var ms []*Member
	for _, id := range ids {
		if id < 1 || id > len(e.Members) {
			return nil, fmt.Errorf("zktest: no member %d in an ensemble of %d", id, len(e.Members))
		}
		ms = append(ms, e.Members[id-1])
	}
	return ms, nil
}
