package passwordencoder

import (
	"errors"
	"fmt"
)

// Reasons an encoder cannot be built or a value cannot be encoded or
// decoded. Errors of this package wrap one of them, for errors.Is, and
// never hold the secret, a password or an encrypted password.
var (
	// ErrWrongSecret is a value whose decryption fails: a wrong secret,
	// or an encrypted password, salt or initialization vector that was
	// altered. Kafka reports it as "Password could not be decoded".
	ErrWrongSecret = errors.New("password could not be decoded: wrong secret or altered value")
	// ErrMalformed is a value that is not a well-formed encoded
	// password: a pair without ':', a missing field, a number or Base64
	// that does not parse, a parameter of the wrong size.
	ErrMalformed = errors.New("malformed encoded password")
	// ErrUnsupportedAlgorithm is a key factory or cipher this package
	// does not implement, or one Kafka's encoder cannot use as
	// configured.
	ErrUnsupportedAlgorithm = errors.New("unsupported algorithm")
	// ErrInvalidSetting is an encoder setting Kafka refuses or cannot
	// encode with, such as a key length no AES key has.
	ErrInvalidSetting = errors.New("invalid password encoder setting")
	// ErrInvalidArgument is an argument no call accepts, such as a nil
	// Option; New's error for it wraps ErrInvalidSetting too.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrInvalidPassword is a password that is not valid UTF-8, which no
	// Java string holds.
	ErrInvalidPassword = errors.New("password is not valid UTF-8")
)

// fieldError reports reason for one field of an encoded password, naming
// the field and, for fields that hold no secret, what is wrong.
func fieldError(reason error, field, detail string) error {
	if detail == "" {
		return fmt.Errorf("passwordencoder: %w: field %q", reason, field)
	}
	return fmt.Errorf("passwordencoder: %w: field %q: %s", reason, field, detail)
}
