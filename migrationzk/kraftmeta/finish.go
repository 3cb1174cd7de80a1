package kraftmeta

// finish ends a replay: a transaction open at the target is undone, and
// the image is mapped into the result.
func (l *loader) finish(o options) (*Result, error) {
	r := l.result
	if o.requireTarget && l.consumed < o.target {
		return nil, &OffsetError{Target: o.target, Oldest: -1, End: l.consumed, Reason: ErrBeyondEnd}
	}
	if o.requireTarget && r.After == nil {
		r.After = &Lag{FirstOffset: -1, LastOffset: -1, ByType: map[string]int{}, EndOffset: l.consumed}
	}
	if l.s.txn != nil {
		t, before := l.s.rollback()
		r.OpenTransaction = &t.Transaction
		l.prov = before
	}
	r.Offset, r.Epoch, r.LastContainedLogTimeMs = l.prov.offset, l.prov.epoch, l.prov.timeMs
	r.Skipped = make(map[string]int, len(l.skipped))
	for t, n := range l.skipped {
		r.Skipped[t.String()] = n
	}
	l.s.fill(r)
	return r, nil
}
