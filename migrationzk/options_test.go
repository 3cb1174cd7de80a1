package migrationzk

import "testing"

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
}
