package migrationzk

// freeResends is how many refusals in one transaction are answered by
// sending all the rest of it again: the first. More would make each
// refusal after it cost a whole transaction again.
const freeResends = 1

// pacer chooses the ops of each request that writes one transaction of a
// batch, and takes them off as they land or are refused.
//
// Without refusals the whole transaction goes in one request. ZooKeeper
// reports only the first op of a multi that it refuses, so each refusal
// costs a request. Sending all the rest of the transaction again after
// each one would cost O(n) per refusal, O(n·f) for f refusals among n ops.
// The pacer does so after the first refusal only (freeResends), which
// keeps the common case, a lone refusal, at one request for it. After that
// it sends the ops known to pass (those before the last refusal) with
// a window of untried ops as large as the last gap between refusals, the
// known ops alone once they are at least as many as the window holds, and
// doubles the window after each request that lands. An op is then sent a
// few times on average, whatever ZooKeeper refuses; the requests are at
// most one per op and one for the checkpoint, and a transaction whose
// every op is refused costs one small request per op, as Kafka's one multi
// per op does.
type pacer struct {
	total    int   // ops in the transaction
	good     []int // ops that passed ZooKeeper's checks in the last request
	rest     []int // ops not sent since the last refusal, in order
	refusals int
	window   int // untried ops a request holds; 0 for all of them
	gap      int // untried ops passed between refusals, a moving average

	// How many of good and of rest the last request held.
	nGood, nRest int
}

func newPacer(txn []int) *pacer {
	return &pacer{total: len(txn), rest: txn}
}

// request returns the ops of the next request and whether they are all
// that is left. sizes are the ops' encoded sizes; a request that is not
// all that is left holds ops of at most partLimit bytes.
func (p *pacer) request(sizes []int, partLimit int) (ops []int, all bool) {
	p.nGood, p.nRest = len(p.good), len(p.rest)
	if p.window > 0 {
		if p.nGood >= p.window {
			p.nRest = 0
		} else {
			p.nRest = min(p.nRest, p.window)
		}
	}
	if p.nGood < len(p.good) || p.nRest < len(p.rest) {
		p.trim(sizes, partLimit)
	}
	all = p.nGood == len(p.good) && p.nRest == len(p.rest)
	switch {
	case p.nRest == 0:
		return p.good[:p.nGood], all
	case p.nGood == 0:
		return p.rest[:p.nRest], all
	}
	ops = make([]int, 0, p.nGood+p.nRest)
	return append(append(ops, p.good[:p.nGood]...), p.rest[:p.nRest]...), all
}

// trim shortens a partial request to partLimit bytes of ops. A request
// that cannot hold even one op is sent whole instead: the whole
// transaction fits by construction.
func (p *pacer) trim(sizes []int, partLimit int) {
	bytes, n := 0, 0
	for n < p.nGood+p.nRest {
		i := p.at(n)
		if bytes+sizes[i] > partLimit {
			break
		}
		bytes += sizes[i]
		n++
	}
	switch {
	case n == 0:
		p.nGood, p.nRest = len(p.good), len(p.rest)
	case n < p.nGood:
		p.nGood, p.nRest = n, 0
	default:
		p.nRest = n - p.nGood
	}
}

// at returns the op at position k of the request.
func (p *pacer) at(k int) int {
	if k < p.nGood {
		return p.good[k]
	}
	return p.rest[k-p.nGood]
}

// refuse takes off the op at position k of the last request, which
// ZooKeeper refused after the ops before it passed, and returns it.
func (p *pacer) refuse(k int) int {
	op := p.at(k)
	passed := 0 // untried ops that passed before the refused one
	if k < p.nGood {
		// An op that had passed was refused: ZooKeeper changed under the
		// batch. The others stay known to pass, as far as anything is.
		p.good = append(p.good[:k:k], p.good[k+1:]...)
	} else {
		passed = k - p.nGood
		p.good = append(p.good, p.rest[:passed]...)
		p.rest = p.rest[passed+1:]
	}
	p.refusals++
	if p.refusals > freeResends {
		// The gap between refusals, averaged with more weight on the
		// recent ones.
		if p.window == 0 {
			p.gap = passed
		} else {
			p.gap = (p.gap + passed) / 2
		}
		p.window = max(1, p.gap)
	}
	return op
}

// landed takes off the ops of the last request, which are in ZooKeeper.
func (p *pacer) landed() {
	p.good = p.good[p.nGood:]
	p.rest = p.rest[p.nRest:]
	if p.window > 0 {
		p.window = min(2*p.window, p.total)
	}
}

// requeue puts ops of the last request that did not land back in front of
// the untried ones: after /migration moved under the batch, nothing is
// known to pass any more.
func (p *pacer) requeue(ops []int) {
	rest := make([]int, 0, len(ops)+len(p.good)-p.nGood+len(p.rest)-p.nRest)
	rest = append(append(append(rest, ops...), p.good[p.nGood:]...), p.rest[p.nRest:]...)
	p.good, p.rest = nil, rest
}

// done reports whether every op of the transaction landed or was refused.
func (p *pacer) done() bool { return len(p.good) == 0 && len(p.rest) == 0 }
