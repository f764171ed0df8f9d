package kernel

// GPU memory quotas. Without them one client allocating until ENOMEM left
// every other client unable to allocate, and even to submit: SubmitCL
// needs an exec buffer and tile-allocation memory, and there was none.
//
// Three limits, all in pages:
//
//   - Each context is charged for every page it holds: its BOs, and the
//     exec buffers, tile memory and overflow pools of its unfinished jobs
//     (pages whose release is deferred stay charged until released).
//     Nothing may take it past its quota (Options.MemoryQuota).
//   - CreateBO stops submitHeadroom short of the quota, so a client that
//     filled its share with buffers can still submit work that uses them.
//   - Buffers of all clients together stop kernelReserve short of the
//     whole memory: the reserve is there only for page tables, exec
//     buffers and tile memory, so with any number of clients at their
//     quotas, every client can still submit.
//
// Over-quota allocations fail with ENOMEM for the client that asked,
// naming the quota; other clients are unaffected.

// Quota defaults, as fractions of the GPU's memory.
const (
	// kernelReserve: 1/16 of memory, at least 4 MiB, at most 1/4.
	reserveDivisor  = 16
	reserveMinBytes = 4 << 20
	// The default quota is half of what buffers may use: no client can
	// hold more than about half the GPU, so a second client always has
	// the other half.
	defaultQuotaDivisor = 2
	// submitHeadroom: 1/8 of the quota, at most 16 MiB.
	headroomDivisor  = 8
	headroomMaxBytes = 16 << 20
)

// quotaLimits are a Device's limits in pages.
type quotaLimits struct {
	reserve  uint32 // pages only kernel allocations may use
	quota    uint32 // pages one context may hold
	headroom uint32 // pages of the quota CreateBO leaves for submissions
}

func newQuotaLimits(totalPages uint32, quotaBytes int64) quotaLimits {
	var q quotaLimits
	q.reserve = max(totalPages/reserveDivisor, reserveMinBytes>>pageShift)
	q.reserve = min(q.reserve, totalPages/4)
	switch {
	case quotaBytes > 0:
		q.quota = uint32(min(quotaBytes>>pageShift, int64(totalPages)))
	default:
		q.quota = (totalPages - q.reserve) / defaultQuotaDivisor
	}
	q.headroom = min(q.quota/headroomDivisor, headroomMaxBytes>>pageShift)
	return q
}

// chargeLocked checks and records that c takes pages more pages, for a
// BO (user) or a job's kernel memory.
func (d *Device) chargeLocked(c *gpuContext, pages uint32, user bool) error {
	q := d.limits
	limit, what := q.quota, "job memory"
	if user {
		limit, what = q.quota-q.headroom, "buffers"
	}
	if uint64(c.charged)+uint64(pages) > uint64(limit) {
		return errorf(ENOMEM, "context %d over its GPU memory quota: %s of %d KiB requested, %d KiB held, %d KiB allowed for %s (quota %d KiB)",
			c.id, what, pages<<pageShift>>10, c.charged<<pageShift>>10, limit<<pageShift>>10, what, q.quota<<pageShift>>10)
	}
	if user && uint64(d.userPages)+uint64(pages)+uint64(q.reserve) > uint64(d.phys.total) {
		return errorf(ENOMEM, "GPU memory for buffers exhausted: %d KiB requested, %d KiB held by all clients' buffers, %d KiB kept for job memory",
			pages<<pageShift>>10, d.userPages<<pageShift>>10, q.reserve<<pageShift>>10)
	}
	c.charged += pages
	if user {
		d.userPages += pages
	}
	return nil
}

// unchargeLocked returns pages charged by chargeLocked.
func (d *Device) unchargeLocked(c *gpuContext, pages uint32, user bool) {
	c.charged -= pages
	if user {
		d.userPages -= pages
	}
}
