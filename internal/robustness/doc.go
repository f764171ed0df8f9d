// Package robustness is the attacker's test suite of issue 6: every case
// runs a victim workload twice — alone, and with an attacker working
// against it at the same time — and asserts that the victim's memory,
// images and fences come out exactly as if the attacker did not exist,
// and that the attacker gets an error for what it tried.
//
// It carries no code of its own (this file is the whole non-test
// package); the cases live in its _test files and run with
// `go test ./...`. The kernel-level cases (kernel_test.go) attack through
// the ioctl-shaped kernel.File API on the real virtual GPU: use after
// free through stale GPU translations, memory exhaustion, other clients'
// fences and handles, guessed and kernel-reserved addresses, concurrent
// stores from many shader cores, and simultaneous faults. GL-level cases
// (runaway shaders, calls after Close, robustness status) attack through
// gl.Context in their own files.
//
// In the architecture this is the verification of the isolation the
// kernel (per-context address spaces, handle tables, fences, quotas,
// deferred free with TLB shootdown) and the hardware (MMU, fault queue,
// word-atomic shader stores) promise in docs/interfaces.md and
// docs/hardware.md.
package robustness
