package kraftlog

import (
	"encoding/binary"
	"errors"
	"io"
)

// maxBatchSize bounds a batch the Scanner reads, far above the 8 MiB a
// Kafka metadata batch holds at most.
const maxBatchSize = 1 << 30

// TailKind says how a file ended.
type TailKind int

const (
	// TailClean is a file that ends right after its last batch.
	TailClean TailKind = iota
	// TailTruncated is a file whose last batch is cut short: a segment
	// being appended to, or one a crash left torn.
	TailTruncated
	// TailZeros is a file whose bytes after its last batch are all zero,
	// as a preallocated or crash-extended segment leaves it.
	TailZeros
)

// String names the kind.
func (k TailKind) String() string {
	switch k {
	case TailClean:
		return "clean"
	case TailTruncated:
		return "truncated"
	case TailZeros:
		return "zeros"
	}
	return "unknown"
}

// Tail says how a file ended after its last complete batch.
type Tail struct {
	Kind TailKind
	// Pos is where the last complete batch ends; Bytes how many bytes
	// follow it.
	Pos, Bytes int64
}

// Scanner reads the batches of a file one at a time, checking each as
// Kafka does (magic 2, size, CRC-32C, no compression), and stops where
// the file ends, in the middle of a batch or in zero bytes (see Tail).
// It reads from a byte slice without copying, or from an io.Reader into
// one buffer it reuses, never larger than the batch the size left in the
// file allows.
type Scanner struct {
	data []byte    // the whole file, in memory mode
	r    io.Reader // the file, in reader mode
	size int64     // the file's size, in reader mode
	pos  int64
	buf  []byte
	tail Tail
	done bool
}

// NewScanner returns a Scanner over a file's bytes.
func NewScanner(data []byte) *Scanner {
	return &Scanner{data: data, size: int64(len(data))}
}

// NewReaderScanner returns a Scanner over the size bytes r holds.
func NewReaderScanner(r io.Reader, size int64) *Scanner {
	return &Scanner{r: r, size: size}
}

// Pos is the byte position of the next batch.
func (s *Scanner) Pos() int64 { return s.pos }

// Tail says how the file ended; it is set once Next returned io.EOF.
func (s *Scanner) Tail() Tail { return s.tail }

// Next returns the next batch, io.EOF at the end of the file (see Tail),
// or an *Error naming the byte position of the batch at fault.
func (s *Scanner) Next() (Batch, error) {
	if s.done {
		return Batch{}, io.EOF
	}
	left := s.size - s.pos
	if left == 0 {
		return Batch{}, s.finish(TailClean, 0)
	}
	head, err := s.peek(int(min(left, headerUpToMagic)))
	if err != nil {
		return Batch{}, err
	}
	if left <= headerUpToMagic {
		return Batch{}, s.finishTail(head, left)
	}
	length := int64(int32(binary.BigEndian.Uint32(head[8:])))
	if length < BatchHeaderSize-logOverhead || length > maxBatchSize {
		if zero, err := s.restIsZero(head); err != nil || zero {
			return Batch{}, cmpOr(err, s.finish(TailZeros, left))
		}
		return Batch{}, &Error{Offset: int64(binary.BigEndian.Uint64(head)), Pos: s.pos, Reason: ErrCorrupt,
			Detail: "batch length " + itoa(int(length)) + " is not between the header's " + itoa(BatchHeaderSize-logOverhead) + " bytes and 1 GiB"}
	}
	if length+logOverhead > left {
		return Batch{}, s.finishTail(head, left)
	}
	b, err := s.read(int(length + logOverhead))
	if err != nil {
		return Batch{}, err
	}
	pos := s.pos
	s.pos += int64(len(b))
	h, err := checkBatch(b)
	if err != nil {
		return Batch{}, at(err, h.BaseOffset, pos)
	}
	return Batch{BatchHeader: h, Pos: pos, Bytes: b}, nil
}

// finishTail ends the file at a batch cut short, or at zeros when head
// and all after it are zero.
func (s *Scanner) finishTail(head []byte, left int64) error {
	zero, err := s.restIsZero(head)
	if err != nil {
		return err
	}
	if zero {
		return s.finish(TailZeros, left)
	}
	return s.finish(TailTruncated, left)
}

// finish ends the file with a tail of kind and bytes left.
func (s *Scanner) finish(kind TailKind, left int64) error {
	s.done = true
	s.tail = Tail{Kind: kind, Pos: s.pos, Bytes: left}
	return io.EOF
}

// cmpOr returns err when it is set, else end.
func cmpOr(err, end error) error {
	if err != nil {
		return err
	}
	return end
}

// peek returns the next n bytes without consuming them.
func (s *Scanner) peek(n int) ([]byte, error) {
	if s.data != nil || s.r == nil {
		return s.data[s.pos : s.pos+int64(n)], nil
	}
	if len(s.buf) >= n {
		return s.buf[:n], nil
	}
	have := len(s.buf)
	s.buf = grow(s.buf, n)
	if _, err := io.ReadFull(s.r, s.buf[have:n]); err != nil {
		return nil, s.readErr(err)
	}
	return s.buf[:n], nil
}

// read consumes the next n bytes, those peeked included.
func (s *Scanner) read(n int) ([]byte, error) {
	b, err := s.peek(n)
	if s.r != nil {
		s.buf = s.buf[:0]
	}
	return b, err
}

// restIsZero reports whether head and everything after it to the end of
// the file are zero bytes; it consumes the rest in reader mode.
func (s *Scanner) restIsZero(head []byte) (bool, error) {
	if !allZero(head) {
		return false, nil
	}
	if s.r == nil {
		return allZero(s.data[s.pos:]), nil
	}
	left := s.size - s.pos - int64(len(head))
	chunk := make([]byte, 64<<10)
	for left > 0 {
		n := int64(len(chunk))
		if left < n {
			n = left
		}
		if _, err := io.ReadFull(s.r, chunk[:n]); err != nil {
			return false, s.readErr(err)
		}
		if !allZero(chunk[:n]) {
			return false, nil
		}
		left -= n
	}
	return true, nil
}

// DetailShortFile is the Detail of the error of a file that holds fewer
// bytes than the size the Scanner was given: one that shrank while read.
const DetailShortFile = "the file ended before its size"

// readErr reports a file shorter than its size, or an I/O error.
func (s *Scanner) readErr(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return &Error{Offset: -1, Pos: s.pos, Reason: ErrCorrupt, Detail: DetailShortFile}
	}
	return err
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// grow returns b with length n, its contents kept.
func grow(b []byte, n int) []byte {
	if cap(b) >= n {
		return b[:n]
	}
	nb := make([]byte, n, max(n, 2*cap(b)))
	copy(nb, b)
	return nb
}
