//go:build !cgo

package stan

import "errors"

// library is unavailable without cgo: models run as processes.
type library struct{}

func openLibrary(path, dataPath string) (*library, error) {
	return nil, errors.New("this fresgld was built without cgo, which loading a model in process needs")
}
func (l *library) dim() int                                         { return 0 }
func (l *library) lpGrad(theta, g []float64) float64                { return 0 }
func (l *library) write(theta []float64, s uint64, o []float64) int { return 0 }
func (l *library) message() string                                  { return "" }
func (l *library) close()                                           {}

const canLoad = false
