package kraftmeta

import (
	"errors"
	"fmt"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
)

// Reasons a metadata file cannot be read. A *FileError matches its
// reason with errors.Is.
var (
	// ErrCorrupt is a structure Kafka cannot read: a length past its
	// batch, a varint too long, a null where none can be, a snapshot
	// without its header or footer.
	ErrCorrupt = kraftlog.ErrCorrupt
	// ErrCRC is a batch whose CRC-32C does not match its bytes.
	ErrCRC = kraftlog.ErrCRC
	// ErrCompressed is a compressed batch, which Kafka 3.9 never writes
	// in the metadata log and this package does not read.
	ErrCompressed = kraftlog.ErrCompressed
	// ErrFrameVersion is a metadata record of a frame version other than
	// 1.
	ErrFrameVersion = kraftlog.ErrFrameVersion
	// ErrTrailingBytes is a record body followed by bytes it does not
	// hold.
	ErrTrailingBytes = kraftlog.ErrTrailingBytes
	// ErrUnknownType is an apiKey Kafka 3.9 defines no metadata record
	// for, or a control record the metadata log does not hold.
	ErrUnknownType = kraftlog.ErrUnknownType
	// ErrUnknownVersion is a version of a record above those Kafka 3.9
	// defines.
	ErrUnknownVersion = kraftlog.ErrUnknownVersion
	// ErrInvalidTag is a tagged field of a later version of its record.
	ErrInvalidTag = kraftlog.ErrInvalidTag
	// ErrInconsistent is a record Kafka's replay refuses: a partition of
	// a topic that does not exist, an ACL removed that was never added, a
	// transaction ended that never began.
	ErrInconsistent = errors.New("inconsistent metadata")
)

// FileError says what is wrong in a metadata file, and where.
type FileError struct {
	// File is the file's path.
	File string
	// Offset is the log offset of the record or batch at fault (in a
	// snapshot, its position from 0), -1 when none is known.
	Offset int64
	// Pos is the byte position in the file, -1 when none is known.
	Pos int64
	// Reason is one of the Err sentinels of this package.
	Reason error
	// Detail says what is wrong.
	Detail string
}

// Error formats the error on one line.
func (e *FileError) Error() string {
	s := e.File
	if e.Offset >= 0 {
		s += fmt.Sprintf(": offset %d", e.Offset)
	}
	if e.Pos >= 0 {
		s += fmt.Sprintf(" (byte %d)", e.Pos)
	}
	s += ": " + e.Reason.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the reason.
func (e *FileError) Unwrap() error { return e.Reason }

// inFile returns err, as read in file, as a *FileError; an error that is
// not about the file's content is returned as it is.
func inFile(file string, err error) error {
	var le *kraftlog.Error
	if errors.As(err, &le) {
		return &FileError{File: file, Offset: le.Offset, Pos: le.Pos, Reason: le.Reason, Detail: le.Detail}
	}
	var fe *FileError
	if errors.As(err, &fe) && fe.File == "" {
		c := *fe
		c.File = file
		return &c
	}
	return err
}

// inconsistent returns an ErrInconsistent error about the record at
// offset.
func inconsistent(offset int64, format string, args ...any) *FileError {
	return &FileError{Offset: offset, Pos: -1, Reason: ErrInconsistent, Detail: fmt.Sprintf(format, args...)}
}

// Reasons a replay cannot reach its target.
var (
	// ErrBelowOldest is a target below the oldest offset the directory
	// holds an image of.
	ErrBelowOldest = errors.New("offset below the oldest image held")
	// ErrBeyondEnd is a target beyond the last offset the directory
	// holds.
	ErrBeyondEnd = errors.New("offset beyond the end of the log")
	// ErrNoMetadata is a path that holds no metadata file.
	ErrNoMetadata = errors.New("no KRaft metadata")
	// ErrChanging is a directory whose files kept vanishing while they
	// were read, beyond the number of times a replay lists it again.
	ErrChanging = errors.New("directory kept changing while read")
)

// OffsetError says that a replay cannot reach its target offset.
type OffsetError struct {
	Target int64
	// Oldest is the oldest offset an image can be had at: a snapshot's
	// last contained offset, or -1 for a log from offset 0.
	Oldest int64
	// End is the last offset the directory holds, -1 for none.
	End int64
	// Reason is ErrBelowOldest or ErrBeyondEnd.
	Reason error
}

// Error names the target and the offsets there are.
func (e *OffsetError) Error() string {
	if errors.Is(e.Reason, ErrBeyondEnd) {
		return fmt.Sprintf("offset %d: %v: the log ends at offset %d", e.Target, e.Reason, e.End)
	}
	return fmt.Sprintf("offset %d: %v: the oldest image held is at offset %d", e.Target, e.Reason, e.Oldest)
}

// Unwrap returns the reason.
func (e *OffsetError) Unwrap() error { return e.Reason }
