package migrationzk_test

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// moduleRoot is the repository's root, seen from this package's directory.
const moduleRoot = ".."

// modulePath is the module's import path.
const modulePath = "github.com/kraftmigration/zkwriter"

// layer is one line of the layer map: its name and its packages, as the
// map spells them.
type layer struct {
	name     string
	packages []string
}

// besideTheWriter is the layer whose packages import no other layer.
const besideTheWriter = "beside the Writer"

// layerLine is a line of the map: a name, two spaces or more, a list.
var layerLine = regexp.MustCompile(`^(\S.*?\S) {2,}(\S.*)$`)

// layerMap reads the layer map in text: the lines indented by indent,
// from the one naming bytes to the first that is no line of the map.
func layerMap(t *testing.T, where, text, indent string) []layer {
	t.Helper()
	var layers []layer
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, indent)
		m := layerLine.FindStringSubmatch(rest)
		if !ok || m == nil || (len(layers) == 0 && m[1] != "bytes") {
			if len(layers) > 0 {
				break
			}
			continue
		}
		layers = append(layers, layer{name: m[1], packages: strings.Split(m[2], ", ")})
	}
	if len(layers) != 5 {
		t.Fatalf("%s: the layer map has %d lines, want 5 starting with bytes: %v", where, len(layers), layers)
	}
	return layers
}

// packagePath is the path below the module of a package as the map names
// it: checker, migrationzk and the commands by their own path, the others
// below migrationzk.
func packagePath(name string) string {
	if name == "checker" || name == "migrationzk" || strings.HasPrefix(name, "cmd/") {
		return name
	}
	return "migrationzk/" + name
}

// mappedPackages lists, below the module, every package the map must
// hold: all but internal ones, the examples, the benchmarks and scripts.
func mappedPackages(t *testing.T) []string {
	t.Helper()
	var pkgs []string
	err := filepath.WalkDir(moduleRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(moduleRoot, p)
		rel = filepath.ToSlash(rel)
		if !d.IsDir() || rel == "." {
			return nil
		}
		base := d.Name()
		top, _, _ := strings.Cut(rel, "/")
		if strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") || base == "testdata" || base == "internal" ||
			slices.Contains([]string{"examples", "bench", "scripts", "docs"}, top) {
			return filepath.SkipDir
		}
		if _, err := build.Default.ImportDir(p, 0); err == nil {
			pkgs = append(pkgs, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// Fault: none. The layer map at the top of the package doc is the
// README's, names every package users may import, and holds the imports
// to it: a package imports only from its own line and those above it,
// and a package beside the Writer from its own line only.
func TestLayerMap(t *testing.T) {
	layers := layerMap(t, "migrationzk/doc.go", packageDoc(t, "."), "\t")
	readme, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if got := layerMap(t, "README.md", string(readme), "    "); !slices.EqualFunc(got, layers, func(a, b layer) bool {
		return a.name == b.name && slices.Equal(a.packages, b.packages)
	}) {
		t.Fatalf("README.md's layer map %v is not the package doc's %v", got, layers)
	}

	lineOf := map[string]int{}
	for i, l := range layers {
		for _, name := range l.packages {
			lineOf[packagePath(name)] = i
		}
	}
	for _, pkg := range mappedPackages(t) {
		if _, ok := lineOf[pkg]; !ok {
			t.Errorf("package %s is not on the layer map: add it to the line of its layer in migrationzk/doc.go and README.md", pkg)
		}
	}
	for pkg, line := range lineOf {
		p, err := build.Default.ImportDir(filepath.Join(moduleRoot, pkg), 0)
		if err != nil {
			t.Errorf("the layer map names %s: %v", pkg, err)
			continue
		}
		for _, imp := range p.Imports {
			dep, ok := strings.CutPrefix(imp, modulePath+"/")
			if !ok || slices.Contains(strings.Split(dep, "/"), "internal") {
				continue
			}
			depLine, mapped := lineOf[dep]
			switch {
			case !mapped:
				t.Errorf("%s imports %s, which the layer map does not name", pkg, dep)
			case depLine > line:
				t.Errorf("%s (%s) imports %s (%s), a layer below it", pkg, layers[line].name, dep, layers[depLine].name)
			case layers[line].name == besideTheWriter && depLine != line:
				t.Errorf("%s, beside the Writer, imports %s (%s)", pkg, dep, layers[depLine].name)
			}
		}
	}
}

// tableRow is a row of the README's package table: its linked package.
var tableRow = regexp.MustCompile("(?m)^\\| \\[`([^`]+)`\\]\\(([^)]+)\\) \\|")

// Fault: none. The README's package table lists the map's packages in
// layer order, each linked to its directory.
func TestReadmePackageTableInLayerOrder(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range layerMap(t, "migrationzk/doc.go", packageDoc(t, "."), "\t") {
		for _, name := range l.packages {
			want = append(want, packagePath(name))
		}
	}
	var got []string
	for _, m := range tableRow.FindAllStringSubmatch(string(readme), -1) {
		if m[1] != m[2] {
			t.Errorf("the package table links %s to %s", m[1], m[2])
		}
		got = append(got, m[1])
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the README's package table lists\n%v\nwant the layer map's order\n%v", got, want)
	}
}
