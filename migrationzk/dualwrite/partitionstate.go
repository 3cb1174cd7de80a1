package dualwrite

// HasState reports whether p has a leader state: false for a partition
// Read found without a state znode (or ReadImageJSON read with "state":
// null); true for every partition a caller builds. Diff plans a state
// written for a partition of current without one only when desired holds
// one, and none for a partition of desired without one.
func (p Partition) HasState() bool { return !p.noState }
