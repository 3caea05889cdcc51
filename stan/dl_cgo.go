//go:build cgo

package stan

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>

typedef void* (*new_fn)(const char*);
typedef void (*free_fn)(void*);
typedef int (*dim_fn)(void*);
typedef double (*lp_grad_fn)(void*, const double*, double*);
typedef int (*write_fn)(void*, const double*, unsigned long long, double*, int);
typedef void (*message_fn)(char*, int);

// cgo calls no function pointer itself: these trampolines do.
static void* call_new(void* f, const char* d) { return ((new_fn)f)(d); }
static void call_free(void* f, void* m) { ((free_fn)f)(m); }
static int call_dim(void* f, void* m) { return ((dim_fn)f)(m); }
static double call_lp_grad(void* f, void* m, const double* x, double* g) { return ((lp_grad_fn)f)(m, x, g); }
static int call_write(void* f, void* m, const double* x, unsigned long long s, double* out, int n) { return ((write_fn)f)(m, x, s, out, n); }
static void call_message(void* f, char* buf, int n) { ((message_fn)f)(buf, n); }
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// library is a model's shared library, loaded, and the model made from its
// data.
type library struct {
	handle                                   unsafe.Pointer
	model                                    unsafe.Pointer
	fNew, fFree, fDim, fLP, fWrite, fMessage unsafe.Pointer
	mu                                       sync.Mutex // guards buf
	buf                                      [1024]C.char
}

// openLibrary loads path and makes its model of the data in dataPath.
func openLibrary(path, dataPath string) (*library, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	h := C.dlopen(cpath, C.RTLD_NOW|C.RTLD_LOCAL)
	if h == nil {
		return nil, fmt.Errorf("loading %s: %s", path, C.GoString(C.dlerror()))
	}
	l := &library{handle: h}
	for _, f := range []struct {
		name string
		to   *unsafe.Pointer
	}{{"fresgld_new", &l.fNew}, {"fresgld_free", &l.fFree}, {"fresgld_dim", &l.fDim}, {"fresgld_lp_grad", &l.fLP}, {"fresgld_write", &l.fWrite}, {"fresgld_message", &l.fMessage}} {
		cname := C.CString(f.name)
		*f.to = C.dlsym(h, cname)
		C.free(unsafe.Pointer(cname))
		if *f.to == nil {
			C.dlclose(h)
			return nil, fmt.Errorf("%s has no %s: compiled by another fresgld", path, f.name)
		}
	}
	cdata := C.CString(dataPath)
	defer C.free(unsafe.Pointer(cdata))
	l.model = C.call_new(l.fNew, cdata)
	if l.model == nil {
		msg := l.message()
		C.dlclose(h)
		return nil, errors.New(msg)
	}
	return l, nil
}

func (l *library) dim() int { return int(C.call_dim(l.fDim, l.model)) }

// lpGrad is log p(θ), its gradient into g (nil: none).
func (l *library) lpGrad(theta, g []float64) float64 {
	var gp *C.double
	if g != nil {
		gp = (*C.double)(unsafe.Pointer(&g[0]))
	}
	return float64(C.call_lp_grad(l.fLP, l.model, (*C.double)(unsafe.Pointer(&theta[0])), gp))
}

func (l *library) write(theta []float64, seed uint64, out []float64) int {
	if len(out) == 0 {
		return 0
	}
	return int(C.call_write(l.fWrite, l.model, (*C.double)(unsafe.Pointer(&theta[0])), C.ulonglong(seed), (*C.double)(unsafe.Pointer(&out[0])), C.int(len(out))))
}

func (l *library) message() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	C.call_message(l.fMessage, &l.buf[0], C.int(len(l.buf)))
	return C.GoString(&l.buf[0])
}

// close frees the model; the library stays loaded (a Stan model's static
// state is not made to be unloaded).
func (l *library) close() { C.call_free(l.fFree, l.model) }

// canLoad says whether this build loads models in process.
const canLoad = true
