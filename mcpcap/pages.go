package mcpcap

import "fmt"

// maxPages bounds every paginated listing. A server that keeps returning a next cursor (the
// same one again, or new ones forever) would otherwise keep the Cap listing, and growing the
// listing, without end.
const maxPages = 1000

// paginate calls list with the empty cursor, then with each next cursor list returns, until it
// returns "". A cursor the server already returned, or more than maxPages pages, is an error.
func paginate(list func(cursor string) (next string, err error)) error {
	seen := make(map[string]bool)
	cursor := ""
	for range maxPages {
		next, err := list(cursor)
		if err != nil {
			return err
		}
		if next == "" {
			return nil
		}
		if seen[next] {
			return fmt.Errorf("server repeated next cursor %q", next)
		}
		seen[next] = true
		cursor = next
	}
	return fmt.Errorf("more than %d pages", maxPages)
}
