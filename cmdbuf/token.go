package cmdbuf

// Tokens are 31-bit serial numbers (SetToken values) that wrap from
// 2^31-1 to 0. A token is "passed" once the service has read a token at or
// after it; the comparison uses serial-number arithmetic on 31 bits, so it
// stays right across the wrap as long as fewer than 2^30 tokens are
// outstanding (the client waits long before that).
const (
	tokenMask = 1<<31 - 1
	tokenHalf = 1 << 30
)

// nextToken returns the token after t.
func nextToken(t uint32) uint32 { return (t + 1) & tokenMask }

// tokenPassed reports whether token t has been passed when the service's
// last read token is last.
func tokenPassed(t, last uint32) bool { return (last-t)&tokenMask < tokenHalf }
