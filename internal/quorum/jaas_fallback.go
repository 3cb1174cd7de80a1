package quorum

// This file is a stand-in for package migrationzk/zkconn/sasl's
// ParseJAASConfig, the project's reader of JAAS text, which reads
// sasl.jaas.config values as Kafka does. Once that package is in the tree,
// delete this file and have parseJAAS call sasl.ParseJAASConfig; jaasEntry
// has the same fields as its sasl.JAASEntry.

import (
	"errors"
	"fmt"
	"strings"
)

// jaasEntry is one login module of a JAAS configuration.
type jaasEntry struct {
	LoginModule string
	Flag        string
	Options     map[string]string
}

// parseJAAS reads the value of sasl.jaas.config: login modules, each
// "<class> <flag> [<option>=<value> ...];", values bare or in double
// quotes (a backslash escapes the next character inside them).
func parseJAAS(value string) ([]jaasEntry, error) {
	toks, err := jaasTokens(value)
	if err != nil {
		return nil, err
	}
	var entries []jaasEntry
	for len(toks) > 0 {
		if len(toks) < 2 || toks[0].punct || toks[1].punct {
			return nil, errors.New("want a login module class and a control flag")
		}
		e := jaasEntry{LoginModule: toks[0].text, Flag: toks[1].text, Options: map[string]string{}}
		switch strings.ToLower(e.Flag) {
		case "required", "requisite", "sufficient", "optional":
		default:
			return nil, fmt.Errorf("control flag %q of %s: want required, requisite, sufficient or optional", e.Flag, e.LoginModule)
		}
		toks = toks[2:]
		for len(toks) > 0 && !(toks[0].punct && toks[0].text == ";") {
			if len(toks) < 3 || toks[0].punct || !toks[1].punct || toks[1].text != "=" || toks[2].punct {
				return nil, fmt.Errorf("options of %s: want name=value", e.LoginModule)
			}
			e.Options[toks[0].text] = toks[2].text
			toks = toks[3:]
		}
		if len(toks) == 0 {
			return nil, fmt.Errorf("the entry of %s does not end with ';'", e.LoginModule)
		}
		toks = toks[1:]
		entries = append(entries, e)
	}
	if len(entries) == 0 {
		return nil, errors.New("no login module")
	}
	return entries, nil
}

// jaasToken is a word, a quoted string, or one of = and ;.
type jaasToken struct {
	text  string
	punct bool
}

func jaasTokens(s string) ([]jaasToken, error) {
	var toks []jaasToken
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '=' || c == ';':
			toks = append(toks, jaasToken{text: string(c), punct: true})
			i++
		case c == '"':
			var b strings.Builder
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				b.WriteByte(s[j])
			}
			if j == len(s) {
				return nil, errors.New("a quoted value does not end")
			}
			toks = append(toks, jaasToken{text: b.String()})
			i = j + 1
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n\r=;\"", rune(s[j])) {
				j++
			}
			toks = append(toks, jaasToken{text: s[i:j]})
			i = j
		}
	}
	return toks, nil
}
