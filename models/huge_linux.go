package models

import (
	"syscall"
	"unsafe"
)

// adviseHuge asks the kernel to back x with transparent huge pages. A
// minibatch reads rows at random across the whole data set, so with 4 KiB
// pages nearly every row costs a TLB miss and a page walk; 2 MiB pages cover
// the data with 512 times fewer entries. Call it before writing x, so the
// pages are huge from their first fault. Failure is harmless and ignored.
func adviseHuge(x []float64) {
	const page = 4096
	if len(x)*8 < 4<<20 {
		return
	}
	start := uintptr(unsafe.Pointer(&x[0]))
	end := start + uintptr(len(x)*8)
	a := (start + page - 1) &^ (page - 1)
	if a >= end {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(&x[0]), a-start)), (end-a)&^(page-1))
	_ = syscall.Madvise(b, 14) // MADV_HUGEPAGE
}
