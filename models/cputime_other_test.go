//go:build !linux

package models_test

import "time"

func threadCPU() time.Duration { return 0 }

func lockThread() func() { return func() {} }
