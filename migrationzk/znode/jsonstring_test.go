package znode

import "testing"

func TestAppendString(t *testing.T) {
	for in, want := range map[string]string{
		"":                    `""`,
		"plain/text\x7f":      "\"plain/text\x7f\"",
		`quote " backslash \`: `"quote \" backslash \\"`,
		"\b\f\n\r\t":          `"\b\f\n\r\t"`,
		"\x00\x01\x1f":        `"\u0000\u0001\u001F"`,
		"é\u2028中":            "\"é\u2028中\"",
		"😀":                   `"\uD83D\uDE00"`,
		"a\xffb":              "\"a\uFFFDb\"",
	} {
		if got := string(appendString(nil, in)); got != want {
			t.Errorf("appendString(%q) = %s, want %s", in, got, want)
		}
	}
}
