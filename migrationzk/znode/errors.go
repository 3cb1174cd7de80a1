package znode

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// Reasons a znode's bytes cannot be decoded. A *DecodeError matches its
// reason with errors.Is.
var (
	ErrNullData       = errors.New("null data")
	ErrEmptyData      = errors.New("empty data")
	ErrInvalidJSON    = errors.New("invalid JSON")
	ErrMissingField   = errors.New("missing field")
	ErrWrongType      = errors.New("wrong type")
	ErrOutOfRange     = errors.New("number out of range")
	ErrUnknownVersion = errors.New("unknown version")
	// ErrInvalidValue is a value of the right type that is not one the
	// field can hold: an unknown enum name, malformed Base64, a name
	// that no sanitized name decodes to.
	ErrInvalidValue = errors.New("invalid value")
)

// maxErrorData is how many bytes of the raw data DecodeError.Error shows.
const maxErrorData = 96

// DecodeError says why a znode's bytes could not be decoded. It matches its
// Reason with errors.Is.
type DecodeError struct {
	// Path is the znode path. Decoders set the canonical path of the
	// znode they decode; callers that know the real path may overwrite it.
	Path string
	// Field is the JSON key at fault, "" when the error is not about one
	// field.
	Field string
	// Reason is one of the Err sentinels of this package.
	Reason error
	// Detail is a short human-readable detail, possibly "".
	Detail string
	// Data is a copy of the raw bytes, nil for null data.
	Data []byte
}

// Error formats the error on one line, with at most the first 96 bytes of
// the data.
func (e *DecodeError) Error() string {
	var b strings.Builder
	b.WriteString("decode")
	if e.Path != "" {
		b.WriteString(" ")
		b.WriteString(e.Path)
	}
	b.WriteString(": ")
	if e.Field != "" {
		fmt.Fprintf(&b, "field %q: ", e.Field)
	}
	if e.Reason != nil {
		b.WriteString(e.Reason.Error())
	} else {
		b.WriteString("unknown reason")
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	b.WriteString(" (data: ")
	switch {
	case e.Data == nil:
		b.WriteString("null")
	case len(e.Data) > maxErrorData:
		fmt.Fprintf(&b, "%q...", e.Data[:maxErrorData])
	default:
		fmt.Fprintf(&b, "%q", e.Data)
	}
	b.WriteString(")")
	return b.String()
}

// Unwrap returns e.Reason.
func (e *DecodeError) Unwrap() error { return e.Reason }

// newError returns a *DecodeError holding a copy of data.
func newError(path, field string, reason error, detail string, data []byte) *DecodeError {
	return &DecodeError{
		Path:   path,
		Field:  field,
		Reason: reason,
		Detail: detail,
		Data:   bytes.Clone(data),
	}
}
