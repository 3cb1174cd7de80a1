package migrationzk

import (
	"fmt"
	"strings"
	"testing"
)

func TestValidatePath(t *testing.T) {
	for p, ok := range map[string]bool{
		"/": true, "/a": true, "/a/b": true, "/a.b/..c/.d": true, "/brokers/topics/t/partitions/0/state": true,
		"": false, "a": false, "//": false, "/a/": false, "/a//b": false, "/.": false, "/..": false,
		"/a/./b": false, "/a/../b": false, "/a/b/..": false, "/a\x00b": false, "/a\nb": false,
		"/a\x1fb": false, "/a\x7fb": false, "/a\u0085b": false, "/a\ud7ffb": true, "/a\ue000b": false, "/a\ufff0b": false,
		"/a\xffb": false, "/caf\u00e9/\u4e2d": true, "/a\x20b~": true, "/caf\u00e9\x01": false,
		"/\u00e9/..": false, "/\u00e9//a": false, "/\u00e9/": false, "/a\x01\u00e9": false, "/\u00e9\x01/b": false, "/.\u00e9/..x": true,
	} {
		if err := validatePath(p); (err == nil) != ok {
			t.Errorf("validatePath(%q) = %v", p, err)
		}
	}
	// Of several problems, the error names the first of: trailing slash,
	// empty segment, ".", "..", character.
	for p, want := range map[string]string{
		"/a//b/": "must not end with /", "/a/./b//c": "empty segment", "/a/../b/./c": "relative segment .",
		"/a\x01/..": "relative segment ..", "/\u00e9\x01/../.": "relative segment .", "/a\x01/\u00e9": "invalid character",
		"/\u00e9\x01": "invalid character", "/x\ue000/b": "invalid character",
	} {
		if err := validatePath(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("validatePath(%q) = %v, want %q", p, err, want)
		}
	}
}

// Paths checked in turn by a pathChecker, which skips the directory they
// share with one of the last two valid paths, get validatePath's verdict:
// each path after valid ones below the same directory and below another,
// with every problem validatePath finds at the start, middle or end of
// what follows it.
func TestPathCheckerAsValidatePath(t *testing.T) {
	dirs := []string{"/", "/a/", "/brokers/topics/caf\u00e9/partitions/"}
	tails := []string{"", "x", "0/state", "/x", "x/", ".", "..", "./x", "../x", "x/.", "x/..", "x//y",
		"x\x01", "\u00e9\x01", "\x7f", "x\ue000", ".x", "..x", "\u00e9", "\xff"}
	for _, dir := range dirs {
		for _, other := range dirs {
			for _, tail := range tails {
				// dir is the checker's latest directory, or the one before
				// it when other comes after it.
				var c pathChecker
				for _, prev := range []string{dir + "ok", other + "x/ok"} {
					if err := c.check(prev); err != nil {
						t.Fatalf("check(%q) = %v", prev, err)
					}
				}
				p := dir + tail
				got, want := c.check(p), validatePath(p)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("after %q and %q: check(%q) = %v, validatePath = %v", dir+"ok", other+"x/ok", p, got, want)
				}
			}
		}
	}
}

// validatePath gives the verdict of ZooKeeper's rules checked one by
// one, in their order, as pathByRules does, on every path of up to four
// segments made of empty, relative, plain, control, non-ASCII and
// invalid UTF-8 pieces.
func TestValidatePathByRules(t *testing.T) {
	pieces := []string{"", ".", "..", "a", ".a", "a.", "...", "\x01", "\u00e9", "\xff", "\ue000", "\x7f", " ", "-", "/", "\ufffd", "\u0085"}
	paths := []string{"", "/", "//"}
	for _, a := range pieces {
		for _, b := range pieces {
			for _, c := range pieces {
				for _, d := range pieces {
					paths = append(paths, "/"+a, "/"+a+"/"+b, "/"+a+"/"+b+"/"+c+"/"+d, "/"+a+b+"/"+c+"/", a+"/"+b, "/"+a+"//"+c+d)
				}
			}
		}
	}
	for _, p := range paths {
		if got, want := validatePath(p), pathByRules(p); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("validatePath(%q) = %v, want %v", p, got, want)
		}
	}
}

// pathByRules checks p against each of ZooKeeper's path rules in turn.
func pathByRules(p string) error {
	switch {
	case p == "" || p[0] != '/':
		return errPath("must start with /")
	case p == "/":
		return nil
	case strings.HasSuffix(p, "/"):
		return errPath("must not end with /")
	case strings.Contains(p, "//"):
		return errPath("empty segment")
	case strings.Contains(p, "/./") || strings.HasSuffix(p, "/."):
		return errPath("relative segment .")
	case strings.Contains(p, "/../") || strings.HasSuffix(p, "/.."):
		return errPath("relative segment ..")
	}
	for _, r := range p { // a byte that is not UTF-8 is U+FFFD
		if r < 0x20 || r >= 0x7f && r <= 0x9f || r >= 0xd800 && r <= 0xf8ff || r >= 0xfff0 && r <= 0xffff {
			return errPath("invalid character")
		}
	}
	return nil
}
