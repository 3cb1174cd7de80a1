// Package must unwraps the result of a constructor whose arguments the
// caller, a test or the torture suite, knows to be valid.
package must

// Get returns v, and panics with err when err is not nil: an error there
// is a defect of the caller.
func Get[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
