package migrationzk_test

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// docFiles are the Markdown files whose links are checked: the README
// and every file of docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	entries, err := os.ReadDir(filepath.Join(moduleRoot, "docs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			t.Errorf("docs/%s: docs/ holds Markdown files only", e.Name())
			continue
		}
		files = append(files, "docs/"+e.Name())
	}
	return files
}

var (
	// fence opens or closes a fenced code block.
	fence = regexp.MustCompile("^\\s*(```|~~~)")
	// codeSpan is inline code, whose brackets are no link.
	codeSpan = regexp.MustCompile("`[^`]*`")
	// mdLink is an inline link or image: [text](target "title").
	mdLink = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]*)(?:\s+"[^"]*")?\)`)
	// heading is an ATX heading.
	heading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	// scheme starts an absolute URL.
	scheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// prose returns text without its fenced code blocks, line for line.
func prose(text string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		if fence.MatchString(line) {
			in = !in
			out = append(out, "")
			continue
		}
		if in {
			line = ""
		}
		out = append(out, line)
	}
	return out
}

// anchors lists the anchors GitHub derives from the headings of text: the
// heading's text lower-cased, stripped of all but letters, digits, marks,
// underscores, spaces and hyphens, spaces made hyphens, and -1, -2, ...
// after a repeated one.
func anchors(text string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, line := range prose(text) {
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		title := mdLink.ReplaceAllString(m[1], "$1")
		title = strings.NewReplacer("`", "", "*", "").Replace(title)
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.In(r, unicode.L, unicode.M, unicode.N):
				b.WriteRune(r)
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			out[slug+"-"+strconv.Itoa(n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// link is a relative link of a Markdown file.
type link struct {
	file   string
	line   int
	target string
}

// relativeLinks lists the relative links of the Markdown file at rel.
func relativeLinks(t *testing.T, rel string) []link {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(moduleRoot, rel))
	if err != nil {
		t.Fatal(err)
	}
	lines := prose(string(data))
	text := codeSpan.ReplaceAllStringFunc(strings.Join(lines, "\n"), func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '\n' {
				return r
			}
			return 'x'
		}, s)
	})
	var links []link
	for _, m := range mdLink.FindAllStringSubmatchIndex(text, -1) {
		target := text[m[4]:m[5]]
		if scheme.MatchString(target) {
			continue
		}
		lineNo := strings.Count(text[:m[0]], "\n") + 1
		links = append(links, link{file: rel, line: lineNo, target: target})
	}
	return links
}

// Fault: none. Every relative link of the README and of docs/ names a
// file or directory of the repository, and every anchor a heading of the
// Markdown file it names, as GitHub derives anchors; docs/ holds Markdown
// only, and the README links to each of its files.
func TestDocLinks(t *testing.T) {
	files := docFiles(t)
	linked := map[string]bool{}
	for _, file := range files {
		for _, l := range relativeLinks(t, file) {
			where := fmt.Sprintf("%s:%d: %s", l.file, l.line, l.target)
			target, anchor, _ := strings.Cut(l.target, "#")
			resolved := file
			if target != "" {
				resolved = path.Join(path.Dir(file), target)
			}
			if resolved == ".." || strings.HasPrefix(resolved, "../") {
				t.Errorf("%s: leaves the repository", where)
				continue
			}
			if file == "README.md" {
				linked[resolved] = true
			}
			info, err := os.Stat(filepath.Join(moduleRoot, filepath.FromSlash(resolved)))
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			if anchor == "" {
				continue
			}
			if info.IsDir() || !strings.HasSuffix(resolved, ".md") {
				t.Errorf("%s: an anchor in what is no Markdown file", where)
				continue
			}
			data, err := os.ReadFile(filepath.Join(moduleRoot, filepath.FromSlash(resolved)))
			if err != nil {
				t.Fatal(err)
			}
			if !anchors(string(data))[anchor] {
				t.Errorf("%s: %s has no heading with anchor #%s", where, resolved, anchor)
			}
		}
	}
	for _, file := range files[1:] {
		if !linked[file] {
			t.Errorf("README.md does not link to %s", file)
		}
	}
}

// Fault: none. Anchors are derived as GitHub derives them.
func TestGitHubAnchors(t *testing.T) {
	text := "# The operators' guide: `migrationzk`\n" +
		"## Where zkwriter differs from Kafka 3.9, on purpose\n" +
		"## Writing `/migration` and claiming leadership\n" +
		"## Does ZooKeeper hold what KRaft holds?\n" +
		"```\n# not a heading\n```\n" +
		"### Links [in a heading](x.md) and *emphasis*\n" +
		"## Twice\n## Twice\n"
	want := []string{
		"the-operators-guide-migrationzk",
		"where-zkwriter-differs-from-kafka-39-on-purpose",
		"writing-migration-and-claiming-leadership",
		"does-zookeeper-hold-what-kraft-holds",
		"links-in-a-heading-and-emphasis",
		"twice", "twice-1",
	}
	got := anchors(text)
	for _, a := range want {
		if !got[a] {
			t.Errorf("no anchor %q in %v", a, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("anchors %v, want exactly %v", got, want)
	}
}
