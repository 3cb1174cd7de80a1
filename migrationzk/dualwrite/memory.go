package dualwrite

import (
	"bytes"
	"errors"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// DefaultRememberedPartitions is how many partitions a Client remembers
// at most unless WithRememberedPartitions says otherwise.
const DefaultRememberedPartitions = 1 << 20

// maxRememberedPartitionID bounds the ids a topic's partitions are
// remembered by: they are kept in a slice indexed by id, which a topic
// with sparse ids would otherwise make large.
const maxRememberedPartitionID = 1 << 20

// memory is what a Client remembers of ZooKeeper during its Writer's
// tenure: the version and existence of the znodes it read or wrote, the
// children it listed, the data of the znodes other than partition states,
// and a digest of each partition state's data. It is an optimisation that
// lets a change be planned without reads, never evidence: every op
// planned from it is conditioned on the remembered version, so that
// ZooKeeper refuses it if the znode moved on.
type memory struct {
	mu   sync.Mutex
	seed maphash.Seed
	// tenure is the identity and fence the memory was filled under; a
	// call under another starts it empty.
	tenure    tenureKey
	hasTenure bool
	// limit is how many partitions may be remembered; 0 disables.
	limit, partitions int
	znodes            map[string]migrationzk.Znode // other than partitions' znodes
	listings          map[string][]string          // other than partitions' lists
	topics            map[string]*topicMemory
	// decoded holds topic znodes decoded lately, by path, with the data
	// they were decoded from: a delta checks its leaders against the
	// assignment without decoding it each time. It holds at most
	// maxDecodedPartitions partitions, and is dropped whole past that.
	decoded           map[string]decodedTopic
	decodedPartitions int
	// partitionListings is set once listings may hold the children of a
	// partition znode: until then a state's create needs no look there.
	partitionListings bool
}

// maxDecodedPartitions bounds the partitions of the decoded topics a
// Client keeps.
const maxDecodedPartitions = 10000

// decodedTopic is a topic znode's data and what it decodes to.
type decodedTopic struct {
	data  []byte
	topic znode.Topic
}

// tenureKey identifies a tenure: the controller, its KRaft epoch, and the
// /controller_epoch version that fences it.
type tenureKey struct {
	id, epoch, fence int32
}

// topicMemory is what is remembered of a topic's partitions.
type topicMemory struct {
	// listed: the partitions list was read, and parts holds it (the
	// partitions whose partExists flag is set).
	listed bool
	parts  []partitionMemory // indexed by partition id
}

// partitionMemory is what is remembered of one partition's znode and its
// state znode: 24 bytes.
type partitionMemory struct {
	digest       uint64 // of the state's data
	stateVersion int32
	version      int32 // of the partition znode
	flags        uint8
}

const (
	partKnown uint8 = 1 << iota
	partExists
	stateKnown
	stateExists
)

func newMemory(limit int) *memory {
	m := &memory{seed: maphash.MakeSeed(), limit: limit}
	m.clearLocked()
	return m
}

// clearLocked forgets everything.
func (m *memory) clearLocked() {
	m.znodes, m.listings, m.topics, m.partitions = map[string]migrationzk.Znode{}, map[string][]string{}, map[string]*topicMemory{}, 0
	m.decoded, m.decodedPartitions = map[string]decodedTopic{}, 0
	m.partitionListings = false
}

// forgetAll forgets everything, and the tenure.
func (m *memory) forgetAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.clearLocked()
	m.hasTenure = false
}

// size returns how many partitions m has room for and how many other
// znodes it holds.
func (m *memory) size() (partitions, znodes int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.partitions, len(m.znodes)
}

// enter starts a call under the tenure of s: what was remembered under
// another is forgotten.
func (m *memory) enter(s migrationzk.State) {
	k := tenureKey{s.KRaftControllerID, s.KRaftControllerEpoch, s.ZkControllerEpochZkVersion}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.hasTenure && m.tenure != k {
		m.clearLocked()
	}
	m.tenure, m.hasTenure = k, true
}

// digest returns the digest of data kept for a partition state.
func (m *memory) digest(data []byte) uint64 { return maphash.Bytes(m.seed, data) }

// partitionPath splits a path below a topic's partitions list:
// /brokers/topics/T/partitions/N (state false) or .../N/state (state
// true).
func partitionPath(p string) (topic string, id int32, state, ok bool) {
	rest, found := strings.CutPrefix(p, znode.TopicsPath+"/")
	if !found {
		return "", 0, false, false
	}
	topic, rest, found = strings.Cut(rest, "/partitions/")
	if !found || topic == "" {
		return "", 0, false, false
	}
	idText, tail, hasTail := strings.Cut(rest, "/")
	if hasTail && tail != "state" {
		return "", 0, false, false
	}
	id, ok = parseID(idText)
	return topic, id, hasTail, ok && id < maxRememberedPartitionID
}

// partitionsListOf returns the topic whose partitions list p is.
func partitionsListOf(p string) (string, bool) {
	rest, found := strings.CutPrefix(p, znode.TopicsPath+"/")
	if !found {
		return "", false
	}
	topic, found := strings.CutSuffix(rest, "/partitions")
	return topic, found && topic != "" && !strings.Contains(topic, "/")
}

// partition returns what is remembered of a partition, or nil; grow makes
// room for it.
func (m *memory) partition(topic string, id int32, grow bool) *partitionMemory {
	return m.partitionIn(m.topic(topic, grow), id, grow)
}

// topic returns what is remembered of topic's partitions, or nil; grow
// makes room for it.
func (m *memory) topic(topic string, grow bool) *topicMemory {
	t := m.topics[topic]
	if t == nil && grow {
		t = &topicMemory{}
		m.topics[strings.Clone(topic)] = t // not the rest of a path or buffer it may be cut from
	}
	return t
}

// partitionIn returns what is remembered of partition id of t, or nil;
// grow makes room for it.
func (m *memory) partitionIn(t *topicMemory, id int32, grow bool) *partitionMemory {
	if t == nil {
		return nil
	}
	if int(id) >= len(t.parts) {
		if !grow || m.partitions+int(id)+1-len(t.parts) > m.limit {
			return nil
		}
		m.partitions += int(id) + 1 - len(t.parts)
		t.parts = slices.Grow(t.parts, int(id)+1-len(t.parts))[:id+1]
	}
	return &t.parts[id]
}

// lookup returns what is remembered of p: the znode (Data nil for a
// partition state), and for a partition state its digest.
func (m *memory) lookup(p string) (z migrationzk.Znode, digest uint64, hasDigest, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if topic, id, state, isPart := partitionPath(p); isPart {
		pm := m.partition(topic, id, false)
		switch {
		case pm == nil:
			return z, 0, false, false
		case state && pm.flags&stateKnown != 0:
			return m.partZnode(p, pm.flags&stateExists != 0, pm.stateVersion), pm.digest, pm.flags&stateExists != 0, true
		case !state && pm.flags&partKnown != 0:
			return m.partZnode(p, pm.flags&partExists != 0, pm.version), 0, false, true
		}
		return z, 0, false, false
	}
	z, ok = m.znodes[p]
	return z, 0, false, ok
}

func (m *memory) partZnode(p string, exists bool, version int32) migrationzk.Znode {
	if !exists {
		version = -1
	}
	return migrationzk.Znode{Path: p, Exists: exists, Version: version}
}

// children returns the remembered children of p, sorted.
func (m *memory) children(p string) ([]string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if topic, ok := partitionsListOf(p); ok {
		t := m.topics[topic]
		if t == nil || !t.listed {
			return nil, false
		}
		var names []string
		for id := range t.parts {
			if t.parts[id].flags&partExists != 0 {
				names = append(names, strconv.Itoa(id))
			}
		}
		slices.Sort(names)
		return names, true
	}
	names, ok := m.listings[p]
	return names, ok
}

// hasChild reports whether p's remembered listing holds name, and whether
// p's listing is remembered, without building the listing.
func (m *memory) hasChild(p, name string) (found, listed bool) {
	if topic, ok := partitionsListOf(p); ok {
		m.mu.Lock()
		defer m.mu.Unlock()
		t := m.topics[topic]
		if t == nil || !t.listed {
			return false, false
		}
		id, isID := parseID(name)
		return isID && int(id) < len(t.parts) && t.parts[id].flags&partExists != 0, true
	}
	names, listed := m.children(p)
	_, found = slices.BinarySearch(names, name)
	return found, listed
}

// learn remembers z as a read found it or a write left it; data is kept
// for znodes other than partition states, whose digest is kept instead.
func (m *memory) learn(z migrationzk.Znode) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.learnLocked(z, m.digest(z.Data))
}

// learnDigest remembers that partition state p is at version and holds
// data whose digest is d: a read found data that means what d's data
// does.
func (m *memory) learnDigest(p string, version int32, d uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.learnLocked(migrationzk.Znode{Path: p, Exists: true, Version: version}, d)
}

func (m *memory) learnLocked(z migrationzk.Znode, d uint64) {
	if m.limit == 0 {
		return
	}
	topic, id, state, isPart := partitionPath(z.Path)
	if !isPart {
		if !z.Exists {
			m.dropUnderLocked(z.Path)
		}
		m.znodes[z.Path] = z
		return
	}
	pm := m.partition(topic, id, true)
	if pm == nil {
		m.forgetLocked(z.Path)
		return
	}
	if state {
		pm.flags = pm.flags&^(stateKnown|stateExists) | stateKnown | flagIf(z.Exists, stateExists)
		pm.stateVersion, pm.digest = z.Version, d
		if z.Exists && pm.flags&partExists == 0 { // a state's partition exists
			pm.flags |= partKnown | partExists
			pm.version = -1
		}
		return
	}
	pm.flags = pm.flags&^(partKnown|partExists) | partKnown | flagIf(z.Exists, partExists)
	pm.version = z.Version
	if !z.Exists { // nor its state
		pm.flags = pm.flags&^stateExists | stateKnown
	}
}

func flagIf(b bool, f uint8) uint8 {
	if b {
		return f
	}
	return 0
}

// learnListing remembers the children of l.Path.
func (m *memory) learnListing(l migrationzk.Listing) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.limit == 0 {
		return
	}
	if !l.Exists {
		m.learnLocked(migrationzk.Znode{Path: l.Path, Version: -1}, 0)
		return
	}
	topic, isList := partitionsListOf(l.Path)
	if !isList {
		m.dropUnlistedLocked(l)
		m.listings[l.Path] = l.Names
		_, _, state, isPart := partitionPath(l.Path)
		m.partitionListings = m.partitionListings || isPart && !state
		return
	}
	listed := make(map[int]bool, len(l.Names))
	for _, n := range l.Names {
		id, ok := parseID(n)
		if !ok || id >= maxRememberedPartitionID {
			m.forgetListingLocked(l.Path)
			return
		}
		listed[int(id)] = true
	}
	if t := m.topics[topic]; t != nil {
		// What the listing lacks is missing, with its state; of what it
		// lists, what is remembered of the state stands.
		for id := range t.parts {
			if !listed[id] {
				t.parts[id].flags = partKnown | stateKnown
			}
		}
	}
	for _, n := range l.Names {
		id, _ := parseID(n)
		pm := m.partition(topic, id, true)
		if pm == nil {
			m.forgetListingLocked(l.Path)
			return
		}
		// A listing proves the partition's existence, not its version:
		// its delete is then at any version, as its state's is not.
		pm.flags |= partKnown | partExists
		pm.version = -1
	}
	if m.topics[topic] == nil {
		m.topics[topic] = &topicMemory{}
	}
	m.topics[topic].listed = true
}

// wrote remembers what the ops that landed left, and forgets the paths of
// the ops that did not: what they touched may not be as planned, and
// what an op in doubt touched may hold what it wrote, or not. targets,
// aligned with results, names the partition znodes and states planning
// knew, which need no parsing of their paths.
func (m *memory) wrote(results []migrationzk.OpResult, targets []opTarget) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var t *topicMemory // targets' topic, while nothing else changes m.topics
	for i := range results {
		r := &results[i]
		if i < len(targets) && targets[i].topic != "" && r.Err == nil && r.Op.Kind() == migrationzk.OpCreate {
			t = m.createdLocked(t, targets[i], r)
			continue
		}
		t = nil
		p := r.Op.Path()
		switch {
		case r.Err == nil && !r.Op.Sequential() && r.Op.Kind() == migrationzk.OpDelete:
			m.learnLocked(migrationzk.Znode{Path: p, Version: -1}, 0)
			m.unlistLocked(p, false)
		case r.Err == nil && !r.Op.Sequential():
			m.learnLocked(migrationzk.Znode{Path: p, Exists: true, Data: r.Op.Data(), Version: r.Version}, m.digest(r.Op.Data()))
			m.unlistLocked(p, true)
		case errors.Is(r.Err, migrationzk.ErrOutcomeUnknown):
			m.forgetTouchedLocked(p)
		default: // refused, not applied, or a sequential create
			m.forgetLocked(p)
			m.forgetListingLocked(parent(p))
		}
	}
}

// createdLocked remembers the create of the partition znode or state at
// target, as wrote's landed creates: t is what is remembered of target's
// topic, if known. It returns that.
func (m *memory) createdLocked(t *topicMemory, target opTarget, r *migrationzk.OpResult) *topicMemory {
	if target.state && m.partitionListings {
		m.unlistChildLocked(r.Op.Path(), true)
	}
	if m.limit == 0 {
		return nil
	}
	if t == nil {
		t = m.topic(target.topic, true)
	}
	pm := m.partitionIn(t, target.partition, true)
	switch {
	case pm == nil:
		m.forgetLocked(r.Op.Path())
		return nil
	case target.state:
		pm.flags |= stateKnown | stateExists
		pm.stateVersion, pm.digest = r.Version, m.digest(r.Op.Data())
		if pm.flags&partExists == 0 { // a state's partition exists
			pm.flags |= partKnown | partExists
			pm.version = -1
		}
	default:
		pm.flags |= partKnown | partExists
		pm.version = r.Version
	}
	return t
}

// unlistLocked records in the remembered listing of p's parent that p
// exists or not. A partition's is its topic's partition flags.
func (m *memory) unlistLocked(p string, exists bool) {
	if topic, ok := partitionsListOf(p); ok && exists {
		// A partitions list this Client created has no children yet.
		if _, had := m.znodes[p]; had && m.znodes[p].Version == 0 {
			t := m.topics[topic]
			if t == nil {
				t = &topicMemory{}
				m.topics[topic] = t
			}
			t.listed = t.listed || len(t.parts) == 0
		}
	}
	if _, ok := partitionsListOf(parent(p)); ok {
		return
	}
	m.unlistChildLocked(p, exists)
}

// unlistChildLocked records in the remembered listing of p's parent, not
// a partitions list, that p exists or not.
func (m *memory) unlistChildLocked(p string, exists bool) {
	dir := parent(p)
	names, listed := m.listings[dir]
	if !listed {
		return
	}
	name := p[strings.LastIndexByte(p, '/')+1:]
	i, found := slices.BinarySearch(names, name)
	switch {
	case exists && !found:
		m.listings[dir] = slices.Insert(slices.Clip(names), i, name)
	case !exists && found:
		m.listings[dir] = slices.Delete(slices.Clone(names), i, i+1)
	}
}

// forgetTouchedLocked forgets p and the listing of its parent.
func (m *memory) forgetTouchedLocked(p string) {
	m.forgetLocked(p)
	m.forgetListingLocked(parent(p))
}

func (m *memory) forgetLocked(p string) {
	if topic, id, state, isPart := partitionPath(p); isPart {
		t := m.topics[topic]
		if t == nil || int(id) >= len(t.parts) {
			return
		}
		if state {
			t.parts[id].flags &^= stateKnown | stateExists
			return
		}
		t.parts[id].flags = 0
		t.listed = false
		return
	}
	delete(m.znodes, p)
	if topic, ok := partitionsListOf(p); ok {
		if t := m.topics[topic]; t != nil {
			m.partitions -= len(t.parts)
			delete(m.topics, topic)
		}
	}
}

func (m *memory) forgetListingLocked(p string) {
	if topic, ok := partitionsListOf(p); ok {
		if t := m.topics[topic]; t != nil {
			t.listed = false
		}
		return
	}
	delete(m.listings, p)
}

// dropUnderLocked forgets what is remembered below p, found missing: it
// is missing too.
func (m *memory) dropUnderLocked(p string) {
	prefix := p + "/"
	for q := range m.znodes {
		if strings.HasPrefix(q, prefix) {
			delete(m.znodes, q)
		}
	}
	for q := range m.listings {
		if strings.HasPrefix(q, prefix) {
			delete(m.listings, q)
		}
	}
	if topic, ok := topicUnder(p); ok {
		m.dropTopicLocked(topic)
		return
	}
	if p != znode.TopicsPath && !strings.HasPrefix(znode.TopicsPath, prefix) {
		return // no topic's partitions are below p
	}
	for topic := range m.topics {
		m.dropTopicLocked(topic)
	}
}

// topicUnder returns the topic whose partitions are below p, when p is a
// topic znode or its partitions znode.
func topicUnder(p string) (string, bool) {
	if topic, ok := partitionsListOf(p); ok {
		return topic, true
	}
	topic, found := strings.CutPrefix(p, znode.TopicsPath+"/")
	return topic, found && topic != "" && !strings.Contains(topic, "/")
}

// dropTopicLocked forgets what is remembered of topic's partitions.
func (m *memory) dropTopicLocked(topic string) {
	if t, ok := m.topics[topic]; ok {
		m.partitions -= len(t.parts)
		delete(m.topics, topic)
	}
}

// dropUnlistedLocked forgets what is remembered below the children of
// l.Path that l lacks: they are missing.
func (m *memory) dropUnlistedLocked(l migrationzk.Listing) {
	prefix := strings.TrimSuffix(l.Path, "/") + "/"
	unlisted := func(q string) bool {
		rest, below := strings.CutPrefix(q, prefix)
		if !below {
			return false
		}
		name, _, _ := strings.Cut(rest, "/")
		_, found := slices.BinarySearch(l.Names, name)
		return !found
	}
	for q := range m.znodes {
		if unlisted(q) {
			delete(m.znodes, q)
		}
	}
	for q := range m.listings {
		if unlisted(q) {
			delete(m.listings, q)
		}
	}
	for topic, t := range m.topics {
		if unlisted(znode.TopicPartitionsPath(topic)) {
			m.partitions -= len(t.parts)
			delete(m.topics, topic)
		}
	}
}

// listed reports whether the children of p are remembered: p exists.
func (m *memory) listed(p string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if topic, ok := partitionsListOf(p); ok {
		t := m.topics[topic]
		return t != nil && t.listed
	}
	_, ok := m.listings[p]
	return ok
}

// decodeTopic decodes the topic znode z, or returns what the same data
// decoded to lately.
func (m *memory) decodeTopic(z migrationzk.Znode) (znode.Topic, error) {
	m.mu.Lock()
	d, ok := m.decoded[z.Path]
	m.mu.Unlock()
	if ok && bytes.Equal(d.data, z.Data) {
		return d.topic, nil
	}
	t, err := znode.DecodeTopic(z.Data)
	if err != nil || m.limit == 0 {
		return t, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.decodedPartitions+len(t.Partitions) > maxDecodedPartitions {
		m.decoded, m.decodedPartitions = map[string]decodedTopic{}, 0
	}
	if old, had := m.decoded[z.Path]; had {
		m.decodedPartitions -= len(old.topic.Partitions)
	}
	m.decoded[z.Path] = decodedTopic{data: z.Data, topic: t}
	m.decodedPartitions += len(t.Partitions)
	return t, nil
}
