//go:build mutation

package exchange

const runSlow = false
