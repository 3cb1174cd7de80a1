package migrationzk_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// packageDoc returns the package documentation of the package in dir.
func packageDoc(t *testing.T, dir string) string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for name, pkg := range pkgs {
		if !strings.HasSuffix(name, "_test") {
			return doc.New(pkg, "", 0).Doc
		}
	}
	t.Fatalf("no package in %s", dir)
	return ""
}

// calls lists the names of the methods and functions the body of the
// function called name in file calls, in order.
func calls(t *testing.T, file, name string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == name {
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
						out = append(out, exprText(sel.X)+"."+sel.Sel.Name)
					}
				}
				return true
			})
			return out
		}
	}
	t.Fatalf("no func %s in %s", name, file)
	return nil
}

func exprText(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return "?"
}

// Fault: none. The godoc a reader sees first teaches what the README's
// quick start teaches: the package Example claims, reads the checkpoint,
// names its controller in it and writes through package dualwrite, not
// raw Apply; the package doc's typical controller does the same; both
// packages' docs say what to do with each error, as the quick start's
// handle does, and ErrConflict's doc gives its remedy.
func TestGodocTeachesTheQuickStart(t *testing.T) {
	got := strings.Join(calls(t, "example_test.go", "Example"), " ")
	for _, want := range []string{"w.ClaimLeadership", "w.GetOrCreate", "w.Update", "dualwrite.New", "c.CreateTopic"} {
		i := strings.Index(got, want)
		if i < 0 {
			t.Fatalf("Example does not call %s, in that order after the others: %s", want, got)
		}
		got = got[i:]
	}
	if strings.Contains(strings.Join(calls(t, "example_test.go", "Example"), " "), "w.Apply") {
		t.Fatal("Example teaches raw Apply")
	}

	pkg := packageDoc(t, ".")
	if strings.Contains(pkg, "w.Apply(ctx, s, ops...)") || !strings.Contains(pkg, "dualwrite.New(w)") {
		t.Fatalf("the package doc's typical controller does not write through dualwrite:\n%s", pkg)
	}
	dw := packageDoc(t, "dualwrite")
	for name, text := range map[string]string{"migrationzk": pkg, "dualwrite": dw} {
		_, section, ok := strings.Cut(text, "# Errors and what to do\n")
		if !ok {
			t.Fatalf("package %s has no section \"Errors and what to do\"", name)
		}
		for _, want := range []string{"ErrFenced", "ConflictError", "GetOrCreate", "ErrOutcomeUnknown", "same State", "ErrConflict"} {
			if !strings.Contains(section, want) {
				t.Errorf("package %s: \"Errors and what to do\" does not mention %s", name, want)
			}
		}
	}
	src, err := os.ReadFile("errors.go")
	if err != nil {
		t.Fatal(err)
	}
	_, conflictDoc, _ := strings.Cut(string(src), "// ErrConflict:")
	conflictDoc, _, _ = strings.Cut(conflictDoc, "ErrConflict = ")
	if !strings.Contains(conflictDoc, "What to do") || !strings.Contains(conflictDoc, "GetOrCreate") {
		t.Fatalf("ErrConflict's doc gives no remedy:%s", conflictDoc)
	}
}
