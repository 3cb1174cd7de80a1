package sasl

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ParseJAASConfig parses the value of Kafka's sasl.jaas.config client
// property: one or more entries with no section around them, e.g.
// `org.apache.kafka.common.security.plain.PlainLoginModule required
// username="a" password="b";`. It reads the value as Kafka's clients do,
// with the JDK's java.io.StreamTokenizer:
//
//   - each entry is a login module, a control flag (required, requisite,
//     sufficient or optional, in any case), options name=value, and ';';
//   - a value is quoted, with double or single quotes and Java's escapes
//     (\n, \t, \\, octal \0 to \377, ...), or is one word of letters,
//     digits, '.', '-', '_' and '$' that starts with a letter, '_' or
//     '$': a bare number (password=1234) or a bare path (keyTab=/etc/k)
//     is an error, as in Kafka;
//   - a quoted string also ends at the end of its line;
//   - // and /* */ are comments, and so is a '/' with the rest of its
//     line; "${...}" is not expanded.
//
// An option whose name is not a word or a quoted string (a number, a
// single punctuation mark) is dropped, as Kafka's login modules never see
// it. Errors are *JAASError (without a Path) and hold no text of the
// value, so never a password.
func ParseJAASConfig(value string) ([]JAASEntry, error) {
	entries, err := parseJAASConfig(value)
	if err != nil {
		return nil, err
	}
	return exportEntries(entries), nil
}

func parseJAASConfig(value string) ([]jaasEntry, error) {
	tz := &streamTokenizer{src: value, line: 1}
	var entries []jaasEntry
	for {
		tok := tz.next()
		if tok.kind == tokEOF {
			break
		}
		e, err := tz.entry(tok, len(entries)+1)
		if err != nil {
			return nil, err
		}
		entries = append(entries, e)
	}
	if len(entries) == 0 {
		return nil, &JAASError{Err: errors.New("no login module")}
	}
	return entries, nil
}

// entry reads the rest of entry n, whose first token is module.
func (tz *streamTokenizer) entry(module jaasConfigToken, n int) (jaasEntry, error) {
	fail := func(line int, format string, args ...any) error {
		return &JAASError{Line: line, Err: fmt.Errorf("entry %d: "+format, append([]any{n}, args...)...)}
	}
	if !module.hasText() || module.text == "" {
		return jaasEntry{}, fail(module.line, "no login module class")
	}
	flag := tz.next()
	if !flag.hasText() {
		return jaasEntry{}, fail(flag.line, "no control flag after the login module")
	}
	switch f := strings.ToUpper(flag.text); f {
	case "REQUIRED", "REQUISITE", "SUFFICIENT", "OPTIONAL":
		flag.text = strings.ToLower(f)
	default:
		return jaasEntry{}, fail(flag.line, "the control flag is not required, requisite, sufficient or optional")
	}
	e := jaasEntry{JAASEntry: JAASEntry{LoginModule: module.text, Flag: flag.text, Options: map[string]string{}}, line: module.line}
	for {
		key := tz.next()
		switch {
		case key.kind == tokEOF:
			return jaasEntry{}, fail(key.line, "no ';' at its end")
		case key.kind == tokChar && key.char == ';':
			return e, nil
		}
		value, ok := tz.optionValue()
		if !ok {
			return jaasEntry{}, fail(key.line, "option %d has no value (a value other than a word is quoted)", len(e.keys)+1)
		}
		if !key.hasText() {
			continue // a name Kafka's login modules never see
		}
		if _, dup := e.Options[key.text]; !dup {
			e.keys = append(e.keys, key.text)
		}
		e.Options[key.text] = value
	}
}

// optionValue reads "=" and a value.
func (tz *streamTokenizer) optionValue() (string, bool) {
	eq := tz.next()
	if eq.kind != tokChar || eq.char != '=' {
		return "", false
	}
	v := tz.next()
	return v.text, v.hasText()
}

// The kinds of token of a streamTokenizer.
const (
	tokEOF    = iota
	tokWord   // text is the word
	tokQuoted // text is the string, unquoted
	tokNumber // no text: StreamTokenizer keeps none for a number
	tokChar   // an ordinary character, char
)

type jaasConfigToken struct {
	kind int
	text string
	char rune
	line int
}

// hasText reports whether the token has a string value (StreamTokenizer's
// sval): a word or a quoted string.
func (t jaasConfigToken) hasText() bool { return t.kind == tokWord || t.kind == tokQuoted }

// streamTokenizer splits text as a java.io.StreamTokenizer does with its
// default syntax (letters and U+00A0 up to U+00FF are word characters,
// digits, '.' and '-' start numbers, both quotes quote, '/' comments)
// plus Kafka's changes: // and /* */ comments, and '-', '_' and '$' as
// word characters.
type streamTokenizer struct {
	src  string
	pos  int
	line int
}

func (tz *streamTokenizer) peek() (rune, int) {
	if tz.pos >= len(tz.src) {
		return -1, 0
	}
	return utf8.DecodeRuneInString(tz.src[tz.pos:])
}

// read returns the next character, -1 at the end.
func (tz *streamTokenizer) read() rune {
	r, n := tz.peek()
	tz.pos += n
	if r == '\n' {
		tz.line++
	}
	return r
}

func isSpace(r rune) bool { return r >= 0 && r <= ' ' }

func isWordStart(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0xa0 || r == '_' || r == '$'
}

func isNumeric(r rune) bool { return r >= '0' && r <= '9' || r == '.' || r == '-' }

func (tz *streamTokenizer) next() jaasConfigToken {
	for {
		r, _ := tz.peek()
		for isSpace(r) {
			tz.read()
			r, _ = tz.peek()
		}
		line := tz.line
		switch {
		case r < 0:
			return jaasConfigToken{kind: tokEOF, line: line}
		case isNumeric(r):
			return tz.number(line)
		case isWordStart(r):
			return tz.word(line)
		case r == '"' || r == '\'':
			tz.read()
			return jaasConfigToken{kind: tokQuoted, text: tz.quoted(r), line: line}
		case r == '/':
			tz.read()
			if !tz.comment() {
				return jaasConfigToken{kind: tokEOF, line: tz.line}
			}
		default:
			tz.read()
			return jaasConfigToken{kind: tokChar, char: r, line: line}
		}
	}
}

// number reads a number: an optional '-', digits with at most one '.'. A
// '-' without a digit or '.' after it is an ordinary character.
func (tz *streamTokenizer) number(line int) jaasConfigToken {
	if r, _ := tz.peek(); r == '-' {
		tz.read()
		if next, _ := tz.peek(); next != '.' && (next < '0' || next > '9') {
			return jaasConfigToken{kind: tokChar, char: '-', line: line}
		}
	}
	seenDot := false
	for {
		r, _ := tz.peek()
		switch {
		case r == '.' && !seenDot:
			seenDot = true
		case r >= '0' && r <= '9':
		default:
			return jaasConfigToken{kind: tokNumber, line: line}
		}
		tz.read()
	}
}

func (tz *streamTokenizer) word(line int) jaasConfigToken {
	start := tz.pos
	for {
		r, _ := tz.peek()
		if !isWordStart(r) && !isNumeric(r) {
			return jaasConfigToken{kind: tokWord, text: tz.src[start:tz.pos], line: line}
		}
		tz.read()
	}
}

// quoted reads a string quoted by q, its opening quote read: up to the
// closing quote, the end of the line or the end of the text.
func (tz *streamTokenizer) quoted(q rune) string {
	var b strings.Builder
	for {
		r, _ := tz.peek()
		switch {
		case r < 0 || r == '\n' || r == '\r':
			return b.String()
		case r == q:
			tz.read()
			return b.String()
		case r == '\\':
			tz.read()
			b.WriteRune(tz.escape())
		default:
			b.WriteRune(tz.read())
		}
	}
}

// escape reads what follows a backslash: an octal code (up to \377), a
// letter of Java's escapes, or any other character, which stands for
// itself.
func (tz *streamTokenizer) escape() rune {
	r := tz.read()
	switch {
	case r >= '0' && r <= '7':
		return tz.octal(r)
	case r < 0:
		return 0xffff // what Java keeps of a backslash at the end
	}
	switch r {
	case 'a':
		return 7
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'v':
		return '\v'
	}
	return r
}

// octal reads the rest of an octal escape whose first digit was first:
// three digits at most, two when the first is above 3.
func (tz *streamTokenizer) octal(first rune) rune {
	code, most := first-'0', 2
	if first <= '3' {
		most = 3
	}
	for digits := 1; digits < most; digits++ {
		next, _ := tz.peek()
		if next < '0' || next > '7' {
			break
		}
		code = code<<3 + tz.read() - '0'
	}
	return code
}

// comment skips a comment whose '/' was read: /* to */, or // and a
// lone '/' to the end of the line (a lone '/' also swallows the character
// after it, whatever it is). It reports false when the text ends inside
// a /* comment.
func (tz *streamTokenizer) comment() bool {
	r := tz.read()
	if r == '*' {
		end := strings.Index(tz.src[tz.pos:], "*/")
		if end < 0 {
			tz.pos = len(tz.src)
			return false
		}
		tz.line += strings.Count(tz.src[tz.pos:tz.pos+end], "\n")
		tz.pos += end + 2
		return true
	}
	if r >= 0 {
		for next, _ := tz.peek(); next >= 0 && next != '\n' && next != '\r'; next, _ = tz.peek() {
			tz.read()
		}
	}
	return true
}
