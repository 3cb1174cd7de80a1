package sasl

import (
	"fmt"
	"strings"
)

// JAASEntry is one login module entry.
type JAASEntry struct {
	// LoginModule is the login module's class name.
	LoginModule string
	// Flag is the control flag, in lower case: required, requisite,
	// sufficient or optional.
	Flag string
	// Options are the entry's options; of an option given twice, the
	// last value counts, as for the JDK and Kafka.
	Options map[string]string
}

// jaasEntry is a JAASEntry with its option names in the order given and
// the line it starts on.
type jaasEntry struct {
	JAASEntry
	keys []string
	line int
}

// jaasToken is a word, a quoted string or one of { } ; =.
type jaasToken struct {
	text   string
	quoted bool
	line   int
}

// ParseJAAS parses a JAAS file's text into its sections, by name:
//
//	Name { module.Class flag key=value key="value"; ... };
//
// with // and /* */ comments, as the JDK reads java.security.auth.login.config.
// Section names keep their case. Values are read as written: ${property}
// expansion, which the JDK makes, is refused. Errors are *JAASError
// (without a Path) and never hold an option's value.
func ParseJAAS(src string) (map[string][]JAASEntry, error) {
	sections, err := parseJAAS(src)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]JAASEntry, len(sections))
	for name, entries := range sections {
		out[name] = exportEntries(entries)
	}
	return out, nil
}

func exportEntries(entries []jaasEntry) []JAASEntry {
	out := make([]JAASEntry, len(entries))
	for i, e := range entries {
		out[i] = e.JAASEntry
	}
	return out
}

// parseJAAS is ParseJAAS with each entry's option order and line.
func parseJAAS(src string) (map[string][]jaasEntry, error) {
	toks, err := jaasTokens(src)
	if err != nil {
		return nil, err
	}
	p := &jaasParser{toks: toks}
	sections := map[string][]jaasEntry{}
	for !p.atEnd() {
		name, entries, err := p.section()
		if err != nil {
			return nil, err
		}
		if _, dup := sections[name]; dup {
			return nil, p.errorf("section %q given twice", name)
		}
		sections[name] = entries
	}
	return sections, nil
}

type jaasParser struct {
	toks []jaasToken
	pos  int
}

func (p *jaasParser) atEnd() bool { return p.pos >= len(p.toks) }

func (p *jaasParser) errorf(format string, args ...any) error {
	line := 0
	switch {
	case p.pos < len(p.toks):
		line = p.toks[p.pos].line
	case len(p.toks) > 0:
		line = p.toks[len(p.toks)-1].line
	}
	return &JAASError{Line: line, Err: fmt.Errorf(format, args...)}
}

func (p *jaasParser) next() (jaasToken, bool) {
	if p.atEnd() {
		return jaasToken{}, false
	}
	t := p.toks[p.pos]
	p.pos++
	return t, true
}

// expect consumes the punctuation want.
func (p *jaasParser) expect(want string) error {
	t, ok := p.next()
	if !ok || t.quoted || t.text != want {
		p.pos--
		return p.errorf("expected %q", want)
	}
	return nil
}

// word consumes an unquoted word (what names the thing, for errors).
func (p *jaasParser) word(what string) (jaasToken, error) {
	t, ok := p.next()
	if !ok || t.quoted || isJAASPunct(t.text) {
		p.pos--
		return jaasToken{}, p.errorf("expected %s", what)
	}
	return t, nil
}

func (p *jaasParser) peek(text string) bool {
	return !p.atEnd() && !p.toks[p.pos].quoted && p.toks[p.pos].text == text
}

func (p *jaasParser) section() (string, []jaasEntry, error) {
	name, err := p.word("a section name")
	if err != nil {
		return "", nil, err
	}
	if err := p.expect("{"); err != nil {
		return "", nil, err
	}
	var entries []jaasEntry
	for !p.peek("}") {
		e, err := p.entry()
		if err != nil {
			return "", nil, err
		}
		entries = append(entries, e)
	}
	p.pos++
	if err := p.expect(";"); err != nil {
		return "", nil, err
	}
	return name.text, entries, nil
}

func (p *jaasParser) entry() (jaasEntry, error) {
	module, err := p.word("a login module class")
	if err != nil {
		return jaasEntry{}, err
	}
	flag, err := p.word("a control flag")
	if err != nil {
		return jaasEntry{}, err
	}
	switch strings.ToLower(flag.text) {
	case "required", "requisite", "sufficient", "optional":
	default:
		p.pos--
		return jaasEntry{}, p.errorf("control flag %q: want required, requisite, sufficient or optional", flag.text)
	}
	e := jaasEntry{JAASEntry: JAASEntry{LoginModule: module.text, Flag: strings.ToLower(flag.text), Options: map[string]string{}}, line: module.line}
	for !p.peek(";") {
		key, err := p.word("an option name or \";\"")
		if err != nil {
			return jaasEntry{}, err
		}
		if err := p.expect("="); err != nil {
			return jaasEntry{}, err
		}
		value, ok := p.next()
		if !ok || (!value.quoted && isJAASPunct(value.text)) {
			p.pos--
			return jaasEntry{}, p.errorf("option %s has no value", key.text)
		}
		if strings.Contains(value.text, "${") {
			return jaasEntry{}, &JAASError{Line: value.line, Err: fmt.Errorf("option %s: ${property} expansion is not supported", key.text)}
		}
		if _, dup := e.Options[key.text]; !dup {
			e.keys = append(e.keys, key.text)
		}
		e.Options[key.text] = value.text // the last one counts, as for the JDK
	}
	p.pos++
	return e, nil
}

func isJAASPunct(s string) bool { return s == "{" || s == "}" || s == ";" || s == "=" }

// jaasTokens splits src into tokens, dropping comments.
func jaasTokens(src string) ([]jaasToken, error) {
	var toks []jaasToken
	line := 1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			i++
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, &JAASError{Line: line, Err: fmt.Errorf("unterminated comment")}
			}
			line += strings.Count(src[i:i+2+end], "\n")
			i += end + 4
		case isJAASPunct(string(c)):
			toks = append(toks, jaasToken{text: string(c), line: line})
			i++
		case c == '"':
			text, n, err := jaasQuoted(src[i:])
			if err != nil {
				return nil, &JAASError{Line: line, Err: err}
			}
			toks = append(toks, jaasToken{text: text, quoted: true, line: line})
			line += strings.Count(src[i:i+n], "\n")
			i += n
		default:
			j := i
			for j < len(src) && !strings.ContainsRune(" \t\r\n\f{};=\"", rune(src[j])) && !strings.HasPrefix(src[j:], "//") && !strings.HasPrefix(src[j:], "/*") {
				j++
			}
			toks = append(toks, jaasToken{text: src[i:j], line: line})
			i = j
		}
	}
	return toks, nil
}

// jaasQuoted reads the quoted string at the start of s, with backslash
// escapes, and returns its text and length in s.
func jaasQuoted(s string) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '"':
			return b.String(), i + 1, nil
		case '\\':
			if i+1 >= len(s) {
				break
			}
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(s[i])
		}
	}
	return "", 0, fmt.Errorf("unterminated quoted string")
}
