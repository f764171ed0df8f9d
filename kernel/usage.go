package kernel

// MemoryInUse is how many bytes of GPU physical memory are allocated (BOs,
// page tables, rings, tile memory) — what a service hosting many clients
// watches to see that a departed client left nothing behind.
func (d *Device) MemoryInUse() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return int(d.phys.used) << pageShift
}
