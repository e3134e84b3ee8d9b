package gateway

// RawIsError exposes rawIsError to the tests.
var RawIsError = rawIsError
