package ext

// Catalogue is what a capability's static instructions hold when they are a catalogue kept
// within a budget (a skill manager's <available-skills>): the budget, the size of the text
// served, and the entries it left out.
type Catalogue struct {
	// Budget is the most characters the catalogue may take; 0 means no limit.
	Budget int `json:"budget"`
	// Chars and Bytes are the catalogue's size as served, in characters and in UTF-8 bytes.
	Chars int `json:"chars"`
	Bytes int `json:"bytes"`
	// Listed is how many entries it lists.
	Listed int `json:"listed"`
	// Cut names the entries left out to keep within Budget, in the order they would have come
	// next; empty (never nil) when none were.
	Cut []string `json:"cut"`
}
