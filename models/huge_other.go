//go:build !linux

package models

func adviseHuge([]float64) {}
