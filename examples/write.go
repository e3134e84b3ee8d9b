package examples

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteSkills copies the example skills into dir (which must exist), one folder per skill,
// and returns the names written.
// The skill manager reads real folders, so a binary that serves the examples writes them to a
// temporary directory first (and removes it when done).
func WriteSkills(dir string) ([]string, error) {
	entries, err := fs.ReadDir(Skills, "skills")
	if err != nil {
		return nil, fmt.Errorf("examples: %w", err)
	}
	var written []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub, err := fs.Sub(Skills, "skills/"+e.Name())
		if err != nil {
			return written, fmt.Errorf("examples: %s: %w", e.Name(), err)
		}
		if err := os.CopyFS(filepath.Join(dir, e.Name()), sub); err != nil {
			return written, fmt.Errorf("examples: write %s: %w", e.Name(), err)
		}
		written = append(written, e.Name())
	}
	return written, nil
}
