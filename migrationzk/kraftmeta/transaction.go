package kraftmeta

// Transaction is a metadata transaction: the records between a
// BeginTransactionRecord and its EndTransactionRecord apply together, and
// an AbortTransactionRecord discards them.
type Transaction struct {
	// Name is the name the BeginTransactionRecord gives, "" for none.
	Name string
	// BeginOffset is the offset of the BeginTransactionRecord.
	BeginOffset int64
}

// transaction is the open transaction of a replay: what undoes its
// records, and the provenance of the image before it began.
type transaction struct {
	Transaction
	seq    int
	before provenance
	undo   []func()
}

// provenance is where an image stands: the last offset it contains, the
// epoch of that record's batch, and that batch's timestamp.
type provenance struct {
	offset int64
	epoch  int32
	timeMs int64
}

// begin opens a transaction at offset.
func (s *state) begin(name *string, offset int64, before provenance) error {
	if s.txn != nil {
		return inconsistent(offset, "BeginTransactionRecord while the transaction begun at offset %d is open", s.txn.BeginOffset)
	}
	s.txnSeq++
	t := &transaction{Transaction: Transaction{BeginOffset: offset}, seq: s.txnSeq, before: before}
	if name != nil {
		t.Name = *name
	}
	s.txn = t
	return nil
}

// end closes the open transaction, its records applied.
func (s *state) end(offset int64) error {
	if s.txn == nil {
		return inconsistent(offset, "EndTransactionRecord without a BeginTransactionRecord")
	}
	s.txn = nil
	return nil
}

// abort closes the open transaction, its records undone.
func (s *state) abort(offset int64) error {
	if s.txn == nil {
		return inconsistent(offset, "AbortTransactionRecord without a BeginTransactionRecord")
	}
	s.rollback()
	return nil
}

// rollback undoes the open transaction's records and closes it; it
// returns the transaction and the provenance of the image before it.
func (s *state) rollback() (*transaction, provenance) {
	t := s.txn
	for i := len(t.undo) - 1; i >= 0; i-- {
		t.undo[i]()
	}
	s.txn = nil
	return t, t.before
}

// onUndo records how to undo a change, when a transaction is open. The
// records a snapshot holds one of per topic check for a transaction
// first, so that none allocates the closure outside one.
func (s *state) onUndo(f func()) {
	if s.txn != nil {
		s.txn.undo = append(s.txn.undo, f)
	}
}

// undoPartition records how to restore partition id of t as it is now,
// unless the open transaction created t (undoing that removes it whole).
func (s *state) undoPartition(t *topicMeta, id int32) {
	if s.txn == nil || t.txn == s.txn.seq {
		return
	}
	old, had := t.parts[id]
	oldExtra := t.extra(id)
	s.onUndo(func() {
		if had {
			t.parts[id] = old
		} else {
			delete(t.parts, id)
		}
		t.setExtra(id, oldExtra)
	})
}
