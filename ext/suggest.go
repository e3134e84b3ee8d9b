package ext

import (
	"context"
	"strings"
)

// SkillSuggester is a SkillResource that can say what a skill:// URI naming none of its skills
// may have meant, as load_skill does for a mistyped name.
type SkillSuggester interface {
	// SuggestSkill returns the URIs uri may have meant: uri with its skill path written as a
	// skill of the capability is named, when the two differ only in what the capability
	// forgives (package skill: case, "-", "_" and spaces), the file path kept. None when uri
	// names a skill the capability has or nothing is close.
	SuggestSkill(ctx context.Context, uri string) []string
}

// NotFoundError is an ErrNotFound (Err wraps it) that names what the caller may have meant.
// Nothing is read in its place: DidYouMean is a hint for the caller, who may ask again.
type NotFoundError struct {
	Err        error
	DidYouMean []string
}

func (e *NotFoundError) Error() string { return e.Err.Error() + " (" + e.Hint() + ")" }

// Hint is "did you mean <uri>?" ("… or …" for several).
func (e *NotFoundError) Hint() string {
	return "did you mean " + strings.Join(e.DidYouMean, " or ") + "?"
}

func (e *NotFoundError) Unwrap() error { return e.Err }
