package ext

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// confineTree builds base/root with files and symlinks, and a sibling base/root-evil holding a
// secret. It returns root and the resolved root.
func confineTree(t testing.TB) (root, real string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "root")
	evil := filepath.Join(base, "root-evil")
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "sub", "deep"), 0o755))
	must(os.MkdirAll(evil, 0o755))
	must(os.WriteFile(filepath.Join(root, "SKILL.md"), []byte("skill"), 0o644))
	must(os.WriteFile(filepath.Join(root, "sub", "file.txt"), []byte("file"), 0o644))
	must(os.WriteFile(filepath.Join(root, "100%.txt"), []byte("percent"), 0o644))
	must(os.WriteFile(filepath.Join(evil, "secret"), []byte("secret"), 0o644))
	must(os.Symlink(filepath.Join(root, "sub"), filepath.Join(root, "link-in")))         // absolute, inside
	must(os.Symlink("sub/file.txt", filepath.Join(root, "rel-in")))                      // relative, inside
	must(os.Symlink(evil, filepath.Join(root, "link-out")))                              // directory outside
	must(os.Symlink("../root-evil/secret", filepath.Join(root, "file-out")))             // file outside
	must(os.Symlink("/nonexistent/outside", filepath.Join(root, "dangling-out")))        // dangling, outside
	must(os.Symlink("missing-inside", filepath.Join(root, "dangling-in")))               // dangling, inside
	must(os.Symlink(filepath.Join(base, "root-evil"), filepath.Join(root, "sub", "up"))) // nested
	real, err := filepath.EvalSymlinks(root)
	must(err)
	return root, real
}

func TestConfineAllowed(t *testing.T) {
	root, real := confineTree(t)
	cases := map[string]string{
		"SKILL.md":            "SKILL.md",
		"":                    "",
		".":                   "",
		"sub/file.txt":        "sub/file.txt",
		`sub\file.txt`:        "sub/file.txt",
		"sub/../SKILL.md":     "SKILL.md",
		"sub/%2e%2e/SKILL.md": "SKILL.md",
		"./sub//deep/..":      "sub",
		"link-in/file.txt":    "sub/file.txt",
		"rel-in":              "sub/file.txt",
		"100%.txt":            "100%.txt",
		"%53KILL.md":          "SKILL.md",
	}
	for rel, want := range cases {
		got, err := Confine(root, rel)
		if err != nil {
			t.Fatalf("Confine(%q): %v", rel, err)
		}
		if w := filepath.Join(real, filepath.FromSlash(want)); got != w {
			t.Fatalf("Confine(%q) = %q, want %q", rel, got, w)
		}
	}
	f, err := OpenConfined(root, "link-in/file.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if b, _ := io.ReadAll(f); string(b) != "file" {
		t.Fatalf("read %q", b)
	}
}

func TestConfineRejectsTraversal(t *testing.T) {
	root, _ := confineTree(t)
	attacks := []string{
		"..",
		"../root-evil/secret",
		"../../etc/passwd",
		"sub/../../root-evil/secret",
		"%2e%2e/root-evil/secret",
		"%2E%2E/root-evil/secret",
		"%2e%2E%2froot-evil%2fsecret",
		"%252e%252e/root-evil/secret",     // double-encoded
		"%25252e%25252e/root-evil/secret", // triple-encoded
		`..\root-evil\secret`,
		`sub\..\..\root-evil\secret`,
		"..%5croot-evil%5csecret",
		"/etc/passwd",
		"%2fetc%2fpasswd",
		`\etc\passwd`,
		"//server/share",
		"C:/Windows/win.ini",
		`c:\windows`,
		"SKILL.md\x00.png",
		"SKILL.md%00",
		"link-out/secret",
		"link-out",
		"file-out",
		"sub/up/secret",
		"link-out/missing-file", // missing, but its existing parent escapes
		"dangling-out",
		"dangling-out/x",
		"%" + strings.Repeat("25", 11) + "2e/x", // "." encoded 12 times: more rounds than allowed
	}
	for _, rel := range attacks {
		p, err := Confine(root, rel)
		if !errors.Is(err, ErrPathTraversal) {
			t.Errorf("Confine(%q) = %q, %v; want ErrPathTraversal", rel, p, err)
		}
		f, err := OpenConfined(root, rel)
		if !errors.Is(err, ErrPathTraversal) {
			if f != nil {
				f.Close()
			}
			t.Errorf("OpenConfined(%q): %v; want ErrPathTraversal", rel, err)
		}
	}
}

func TestConfineMissing(t *testing.T) {
	root, _ := confineTree(t)
	for _, rel := range []string{"nope.md", "sub/nope/deeper.md", "dangling-in", "SKILL.md/x"} {
		_, err := Confine(root, rel)
		if !errors.Is(err, ErrNotFound) || errors.Is(err, ErrPathTraversal) {
			t.Errorf("Confine(%q): %v; want ErrNotFound", rel, err)
		}
		_, err = OpenConfined(root, rel)
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("OpenConfined(%q): %v; want ErrNotFound", rel, err)
		}
	}
	if _, err := Confine(filepath.Join(root, "no-such-root"), "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing root: %v", err)
	}
	if _, err := Confine("", "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("empty root: %v", err)
	}
}

// TestConfineRootIsSymlink: the root itself may be reached through a symlink; results are in
// its resolved form and a sibling of the resolved root is still outside.
func TestConfineRootIsSymlink(t *testing.T) {
	root, real := confineTree(t)
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(root, alias); err != nil {
		t.Fatal(err)
	}
	got, err := Confine(alias, "sub/file.txt")
	if err != nil || got != filepath.Join(real, "sub", "file.txt") {
		t.Fatalf("Confine via alias = %q, %v", got, err)
	}
	if _, err := Confine(alias, "../root-evil/secret"); !errors.Is(err, ErrPathTraversal) {
		t.Fatalf("escape via alias: %v", err)
	}
}

// TestOpenConfinedSymlinkSwap swaps a checked file for a symlink out of the root between the
// check and the open: the open must refuse.
func TestOpenConfinedSymlinkSwap(t *testing.T) {
	root, real := confineTree(t)
	target := filepath.Join(real, "sub", "file.txt")
	openHook = func() {
		if err := os.Remove(target); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(filepath.Join(filepath.Dir(real), "root-evil", "secret"), target); err != nil {
			t.Error(err)
		}
	}
	defer func() { openHook = nil }()
	f, err := OpenConfined(root, "sub/file.txt")
	if err == nil {
		b, _ := io.ReadAll(f)
		f.Close()
		t.Fatalf("opened a swapped-in symlink out of the root, read %q", b)
	}
	if !errors.Is(err, ErrPathTraversal) {
		t.Fatalf("swap: %v; want ErrPathTraversal", err)
	}
}
