package gateway

import "testing"

// isLoopback reads a host with or without a port, IPv6 bracketed or not.
func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"localhost": true, "LocalHost:80": true, "127.0.0.1": true, "127.0.0.1:8080": true, "127.1.2.3": true,
		"[::1]:80": true, "[::1]": true, "::1": true,
		"example.com": false, "example.com:80": false, "10.0.0.1": false, "[::2]:80": false, "": false, "localhost.evil": false,
	} {
		if got := isLoopback(addr); got != want {
			t.Errorf("isLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}
