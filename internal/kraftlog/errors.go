package kraftlog

import (
	"errors"
	"fmt"
)

// Reasons a file, a batch or a record cannot be read. An *Error matches
// its reason with errors.Is.
var (
	// ErrCorrupt is a structure Kafka cannot read: a length that runs
	// past its batch, a varint too long, a non-nullable field that is
	// null, a count that is negative.
	ErrCorrupt = errors.New("corrupt")
	// ErrCRC is a batch whose CRC-32C does not match its bytes.
	ErrCRC = errors.New("CRC mismatch")
	// ErrCompressed is a compressed batch: Kafka 3.9 never compresses
	// metadata, and this package reads none.
	ErrCompressed = errors.New("compressed batch")
	// ErrFrameVersion is a metadata record whose ApiMessageAndVersion
	// frame version is not 1.
	ErrFrameVersion = errors.New("unsupported frame version")
	// ErrTrailingBytes is a record body followed by bytes it does not
	// hold.
	ErrTrailingBytes = errors.New("trailing bytes")
	// ErrUnknownType is an apiKey Kafka 3.9 defines no metadata record
	// for, or a control record type it does not read.
	ErrUnknownType = errors.New("unknown record type")
	// ErrUnknownVersion is a version of a record above the versions
	// Kafka 3.9 defines for it.
	ErrUnknownVersion = errors.New("unknown record version")
	// ErrInvalidTag is a tagged field that a later version of the record
	// defines, which Kafka refuses at this version.
	ErrInvalidTag = errors.New("tag not valid for this version")
)

// Error says what is wrong at a place in a file.
type Error struct {
	// Offset is the log offset of the record or batch at fault, -1 when
	// none is known.
	Offset int64
	// Pos is the byte position in the file or buffer the reader was
	// given, -1 when none is known.
	Pos int64
	// Reason is one of the Err sentinels of this package.
	Reason error
	// Detail says what is wrong in words.
	Detail string
}

// Error formats the error on one line.
func (e *Error) Error() string {
	s := e.Reason.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	switch {
	case e.Offset >= 0 && e.Pos >= 0:
		return fmt.Sprintf("offset %d (byte %d): %s", e.Offset, e.Pos, s)
	case e.Offset >= 0:
		return fmt.Sprintf("offset %d: %s", e.Offset, s)
	case e.Pos >= 0:
		return fmt.Sprintf("byte %d: %s", e.Pos, s)
	}
	return s
}

// Unwrap returns the reason.
func (e *Error) Unwrap() error { return e.Reason }

// errorf returns an *Error without a place.
func errorf(reason error, format string, args ...any) *Error {
	return &Error{Offset: -1, Pos: -1, Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

// at places err, an *Error without a place, at offset and pos; other
// errors are returned as they are.
func at(err error, offset, pos int64) error {
	var e *Error
	if errors.As(err, &e) {
		c := *e
		if c.Offset < 0 {
			c.Offset = offset
		}
		if c.Pos < 0 {
			c.Pos = pos
		}
		return &c
	}
	return err
}
