package zkerr

import (
	"errors"
	"fmt"
	"strings"
)

// FirstJoined returns err showing only the first of the errors it joins,
// and how many more there were: the library's reads of many znodes join
// the error of each. errors.Is and errors.As still see every one. An
// error that joins none, or one, is returned as it is.
func FirstJoined(err error) error {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if errs, ok := joined(e); ok && len(errs) > 1 {
			return &firstOfMany{first: errs[0], more: len(errs) - 1, all: err}
		}
	}
	return err
}

// joined returns the errors err joins when errors.Join made it: its text
// is theirs, a line each (an error of fmt.Errorf with several %w also
// wraps several, and reads as one message).
func joined(err error) ([]error, bool) {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return nil, false
	}
	errs := j.Unwrap()
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = e.Error()
	}
	return errs, err.Error() == strings.Join(lines, "\n")
}

// firstOfMany shows the first of several errors, and wraps them all.
type firstOfMany struct {
	first error
	more  int
	all   error
}

func (e *firstOfMany) Error() string { return fmt.Sprintf("%v (and %d more)", e.first, e.more) }
func (e *firstOfMany) Unwrap() error { return e.all }
