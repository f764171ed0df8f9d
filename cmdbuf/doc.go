// Package cmdbuf is tilegpu's GPU process: a Chromium-style command buffer
// that puts a process boundary between an application's gl.Context and the
// one GPU (hw + kernel.Device) that a service shares among all its clients.
// It carries the "cmdbuf" box of ARCHITECTURE.md (Chromium's
// gpu/command_buffer, background/004).
//
// The client half (Client) implements gl.Context by encoding every call into
// a ring of 32-bit entries in shared memory (CommandBufferHelper semantics:
// put/get, batched flushes, Noop padding at the wrap, waiting for space,
// tokens); bulk data travels through transfer buffers carved by a ring
// allocator (IN_USE / FREE_PENDING_TOKEN / PADDING blocks) or through
// buckets, results through result memory. The service half (Service) gives
// each client a kernel File, its own gles context and a decoder that
// validates every command: a malformed command loses that client's context
// and nobody else's; GL errors stay GL errors. Asynchronous texture uploads
// (Client.AsyncTexSubImage2D) are converted on a worker goroutine while the
// decoder goes on (async.go).
//
// The wire format is described once, in spec/commands.txt; `go generate`
// writes commands_gen.go (encoders, decoders with validation, the command
// table behind the stream decoder). Transports: in-process (NewInProcess),
// Unix-domain socket with memfd shared memory (DialUnix / Service.ServeUnix)
// and TCP (DialTCP / Service.ServeTCP); Dial picks one from an address.
package cmdbuf

//go:generate go run ./spec/gen -o commands_gen.go
